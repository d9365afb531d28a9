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
import { DEFAULT_SUPPLIER_ACCOUNT } from '../shared/supplier-accounts';
import { createOrderEventActivities, type OrderEventsEndpoint } from '../order-events/activities';

export type ActivityDeps = BookingActivityDeps & {
  readonly catalogueStore?: CatalogueStore;
  /** Where order events go; absent: none are sent. */
  readonly orderEvents?: OrderEventsEndpoint;
  /** Supplier reads per second as local activities (local-supplier-budget.ts). @default Infinity */
  readonly localCallsPerSecond?: number;
  /** The supplier accounts and whether each takes new orders. @default the default one, enabled */
  readonly accounts?: readonly { readonly id: string; readonly enabled: boolean }[];
};

export function createActivities(deps: ActivityDeps) {
  const supplier = createSupplierActivities(deps);
  const earlierRuns = createEarlierRunsActivities({ orderEvents: deps.orderEvents !== undefined });
  return {
    ...supplier,
    ...earlierRuns,
    ...createGuardStartActivities(),
    ...createLocalReadActivities({
      budget: tokenBucket(deps.localCallsPerSecond ?? Infinity, Date.now()),
      accounts: new Map(
        (deps.accounts ?? [{ id: DEFAULT_SUPPLIER_ACCOUNT, enabled: true }]).map((a) => [a.id, a]),
      ),
      priceCheck: supplier.priceCheck,
      readBookingTerms: supplier.readBookingTerms,
      earlierRunsOfOrder: earlierRuns.earlierRunsOfOrder,
    }),
    ...createOrderEventActivities(deps.orderEvents),
  };
}

/**
 * The activities a supplier account's own worker registers (build-worker.ts): every call the
 * workflows route to the account's task queue (workflows/activity-options.ts `onAccount`).
 */
export function createSupplierActivities(
  deps: BookingActivityDeps & { readonly catalogueStore?: CatalogueStore },
) {
  return {
    ...createBookingActivities(deps),
    ...createGuardActivities(deps),
    ...createCatalogueActivities(deps),
    ...createContentSyncActivities(deps),
  };
}
