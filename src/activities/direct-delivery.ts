/**
 * Whether a worker POSTs an order event to the order system at once, from the local activity
 * that announces it in the workflow task that changed the order's truth, or hands it to the
 * endpoint's delivery workflow: pure decisions, unit-tested (test/activities/direct-delivery.test.ts).
 *
 * An endpoint that answers is sent each event at once: no workflow, task or state change of the
 * event's own. One that failed a direct attempt (an answer other than 2xx, or none within
 * {@link DIRECT_DELIVERY_TIMEOUT_MS}) is left to the endpoint's delivery for
 * {@link DIRECT_DELIVERY_PAUSE_MS}; then one announcement asks that delivery's breaker
 * (workflows/order-events/endpoint-breaker.ts, published in its memo) before this worker tries
 * the endpoint again: open, the pause starts over and no booking waits on the endpoint; closed,
 * that announcement tries it. So a hanging endpoint holds a booking's task for the direct timeout
 * at most once per worker and per pause until the breaker has opened, then not at all until it
 * closes. Before anything is known (an endpoint that starts hanging), a direct attempt out for
 * {@link DIRECT_SLOW_MS} already makes the others hand over instead of waiting with it.
 */

/** How long a direct attempt waits for the order system: the booking's workflow task waits too. */
export const DIRECT_DELIVERY_TIMEOUT_MS = 1_000;

/** How long after a failed direct attempt (or an open breaker) this worker hands every event over. */
export const DIRECT_DELIVERY_PAUSE_MS = 30_000;

/**
 * A direct attempt unanswered this long is a sign: events announced meanwhile do not wait with
 * it. An endpoint that answers does so in a few ms; one that starts hanging holds the bookings
 * of this quarter second for the direct timeout, not those of the whole second.
 */
export const DIRECT_SLOW_MS = 250;

/** This worker's view of the endpoint, for direct attempts. */
export type DirectDeliveryState =
  /** `inFlight`: when the direct attempts still out started. */
  | { readonly kind: 'answering'; readonly inFlight: readonly number[] }
  | { readonly kind: 'paused'; readonly until: number }
  /** One announcement asks the endpoint's breaker; the others hand over meanwhile. */
  | { readonly kind: 'asking' }
  /** The breaker was closed: one direct attempt is in flight, the others wait for its answer. */
  | { readonly kind: 'probing' };

export const ANSWERING: DirectDeliveryState = { kind: 'answering', inFlight: [] };

/** What an announcement does: POST at once, ask the breaker first, or hand the event over. */
export type DirectChoice = 'post' | 'ask' | 'hand-over';

/**
 * What an event announced at `now` does, and the state after that choice (a POST is counted out
 * from `now`: {@link afterDirect} takes the same time back).
 */
export function chooseDirect(
  state: DirectDeliveryState,
  now: number,
): { readonly choice: DirectChoice; readonly next: DirectDeliveryState } {
  switch (state.kind) {
    case 'answering':
      return state.inFlight.some((t) => now - t >= DIRECT_SLOW_MS)
        ? { choice: 'hand-over', next: state }
        : { choice: 'post', next: { kind: 'answering', inFlight: [...state.inFlight, now] } };
    case 'paused':
      return now >= state.until
        ? { choice: 'ask', next: { kind: 'asking' } }
        : { choice: 'hand-over', next: state };
    case 'asking':
    case 'probing':
      return { choice: 'hand-over', next: state };
  }
}

/**
 * After the breaker was asked at `now`: open, the pause starts over; closed, the asking event
 * tries the endpoint while the others still hand over, until its answer.
 */
export function afterAsk(
  breakerOpen: boolean,
  now: number,
  pauseMs = DIRECT_DELIVERY_PAUSE_MS,
): { readonly post: boolean; readonly next: DirectDeliveryState } {
  return breakerOpen
    ? { post: false, next: { kind: 'paused', until: now + pauseMs } }
    : { post: true, next: { kind: 'probing' } };
}

/**
 * The state after a direct attempt that started at `startedAt` ended at `now`: a failure pauses;
 * delivered, the endpoint answers, this attempt no longer out.
 */
export function afterDirect(
  state: DirectDeliveryState,
  startedAt: number,
  delivered: boolean,
  now: number,
  pauseMs = DIRECT_DELIVERY_PAUSE_MS,
): DirectDeliveryState {
  if (!delivered) return { kind: 'paused', until: now + pauseMs };
  if (state.kind !== 'answering') return ANSWERING;
  const i = state.inFlight.indexOf(startedAt);
  return { kind: 'answering', inFlight: state.inFlight.filter((_, j) => j !== i) };
}
