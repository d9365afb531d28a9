/** Every activity the worker registers, built from its dependencies (tests inject their own). */
import type { CatalogueStore } from '../catalogue/store';
import { createBookingActivities, type BookingActivityDeps } from './booking';
import { createCatalogueActivities } from './catalogue';
import { createContentSyncActivities } from './content-sync';
import { createEarlierRunsActivities } from './earlier-runs';
import { createGuardActivities } from './guard';

export type ActivityDeps = BookingActivityDeps & { readonly catalogueStore?: CatalogueStore };

export function createActivities(deps: ActivityDeps) {
  return {
    ...createBookingActivities(deps),
    ...createCatalogueActivities(deps),
    ...createContentSyncActivities(deps),
    ...createEarlierRunsActivities(),
    ...createGuardActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
