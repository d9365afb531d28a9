/**
 * Whether a worker POSTs an order event to the order system at once, from the local activity
 * that announces it, or hands it to the order's delivery workflow: pure decisions, unit-tested
 * (test/activities/direct-delivery.test.ts).
 *
 * An endpoint that answers is sent each event at once, and no delivery workflow starts. One that
 * failed a direct attempt (an answer other than 2xx, or none within
 * {@link DIRECT_DELIVERY_TIMEOUT_MS}) is left to the delivery workflows (their retries, their
 * `FAILING` mark) for {@link DIRECT_DELIVERY_PAUSE_MS}; then one event tries it again while the
 * others still go to their workflows, so a hanging endpoint holds at most one workflow task of
 * this worker per pause, for at most the direct timeout.
 */

/** How long a direct attempt waits for the order system: the booking's workflow task waits too. */
export const DIRECT_DELIVERY_TIMEOUT_MS = 1_000;

/** How long after a failed direct attempt every event of this worker goes to its workflow. */
export const DIRECT_DELIVERY_PAUSE_MS = 30_000;

/** This worker's view of the endpoint, for direct attempts. */
export type DirectDeliveryState =
  | { readonly kind: 'answering' }
  | { readonly kind: 'paused'; readonly until: number }
  /** One direct attempt after a pause is in flight; the others wait for its answer. */
  | { readonly kind: 'probing' };

export const ANSWERING: DirectDeliveryState = { kind: 'answering' };

/** Whether an event announced at `now` is tried directly, and the state after that choice. */
export function chooseDirect(
  state: DirectDeliveryState,
  now: number,
): { readonly direct: boolean; readonly next: DirectDeliveryState } {
  switch (state.kind) {
    case 'answering':
      return { direct: true, next: state };
    case 'paused':
      return now >= state.until
        ? { direct: true, next: { kind: 'probing' } }
        : { direct: false, next: state };
    case 'probing':
      return { direct: false, next: state };
  }
}

/** The state after a direct attempt that ended at `now`, delivered or not. */
export function afterDirect(
  delivered: boolean,
  now: number,
  pauseMs = DIRECT_DELIVERY_PAUSE_MS,
): DirectDeliveryState {
  return delivered ? ANSWERING : { kind: 'paused', until: now + pauseMs };
}
