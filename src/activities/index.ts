/** Every activity the worker registers, built from its dependencies (tests inject their own). */
import type { CatalogueStore } from '../catalogue/store';
import { createBookingActivities, type BookingActivityDeps } from './booking';
import { createCatalogueActivities } from './catalogue';
import { createContentSyncActivities } from './content-sync';
import { createEarlierRunsActivities } from './earlier-runs';
import { createGuardActivities } from './guard';
import { createOrderEventActivities, type OrderEventsEndpoint } from './order-events';

export type ActivityDeps = BookingActivityDeps & {
  readonly catalogueStore?: CatalogueStore;
  /** Where order events go; absent: none are sent. */
  readonly orderEvents?: OrderEventsEndpoint;
};

export function createActivities(deps: ActivityDeps) {
  return {
    ...createBookingActivities(deps),
    ...createCatalogueActivities(deps),
    ...createContentSyncActivities(deps),
    ...createEarlierRunsActivities({ orderEvents: deps.orderEvents !== undefined }),
    ...createGuardActivities(deps),
    ...createOrderEventActivities(deps.orderEvents),
  };
}

export type Activities = ReturnType<typeof createActivities>;
