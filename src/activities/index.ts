/** Every activity the worker registers, built from its dependencies (tests inject their own). */
import type { CatalogueStore } from '../catalogue/store';
import { createBookingActivities, type BookingActivityDeps } from './booking';
import { createCatalogueActivities } from './catalogue';
import { createContentSyncActivities } from './content-sync';
import { createEarlierRunsActivities } from './earlier-runs';
import { createGuardActivities } from './guard';
import { createGuardStartActivities } from './guard-start';
import { createLocalReadActivities } from './local-reads';
import { tokenBucket } from './local-supplier-budget';
import { createOrderEventActivities, type OrderEventsEndpoint } from '../order-events/activities';

export type ActivityDeps = BookingActivityDeps & {
  readonly catalogueStore?: CatalogueStore;
  /** Where order events go; absent: none are sent. */
  readonly orderEvents?: OrderEventsEndpoint;
  /**
   * Supplier reads per second this worker may make as local activities (local-supplier-budget.ts
   * `localCallsPerSecond`). @default Infinity
   */
  readonly localCallsPerSecond?: number;
};

export function createActivities(deps: ActivityDeps) {
  const booking = createBookingActivities(deps);
  const guard = createGuardActivities(deps);
  const earlierRuns = createEarlierRunsActivities({ orderEvents: deps.orderEvents !== undefined });
  return {
    ...booking,
    ...createCatalogueActivities(deps),
    ...createContentSyncActivities(deps),
    ...earlierRuns,
    ...guard,
    ...createGuardStartActivities(),
    ...createLocalReadActivities({
      budget: tokenBucket(deps.localCallsPerSecond ?? Infinity, Date.now()),
      priceCheck: booking.priceCheck,
      readBookingTerms: guard.readBookingTerms,
      earlierRunsOfOrder: earlierRuns.earlierRunsOfOrder,
    }),
    ...createOrderEventActivities(deps.orderEvents),
  };
}

export type Activities = ReturnType<typeof createActivities>;
