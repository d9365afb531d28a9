/**
 * The endpoint's breaker: when the order system's endpoint fails for every order, durable
 * deliveries to it pause, and one event probes it now and then until it answers. Pure decisions,
 * unit-tested (test/workflows/endpoint-breaker.test.ts); the endpoint's delivery workflow
 * (deliver-to-endpoint.ts) holds the one breaker of its endpoint and publishes its state, which
 * workers read before they try the endpoint directly again (activities/direct-delivery.ts).
 *
 * An endpoint that fails one order's events while it takes others' (a receiver whose handler of
 * one type is broken) does not open it: that order retries on its own backoff.
 */
import { BreakerMark } from '../../shared/order-events';
import { retryWaitMs } from './order-event-decisions';

/** Distinct orders whose delivery failed, one after another with none delivered, that open it. */
export const OPEN_AFTER_ORDERS = 3;

export type EndpointBreaker =
  /** Deliveries go out; `failedOrders`: distinct orders failed since the last delivery. */
  | { readonly state: 'closed'; readonly failedOrders: readonly string[] }
  /** Deliveries wait; one probe at `probeAt`, after `probes` failed ones since `since`. */
  | {
      readonly state: 'open';
      readonly since: number;
      readonly probes: number;
      readonly probeAt: number;
      readonly lastFailure: string;
    };

export const CLOSED: EndpointBreaker = { state: 'closed', failedOrders: [] };

/** What the breaker lets out at `now`: every due order, one order as a probe, or nothing yet. */
export type BreakerAllows =
  | { readonly kind: 'all' }
  | { readonly kind: 'probe' }
  | { readonly kind: 'none'; readonly until: number };

export function breakerAllows(breaker: EndpointBreaker, now: number): BreakerAllows {
  if (breaker.state === 'closed') return { kind: 'all' };
  return now >= breaker.probeAt ? { kind: 'probe' } : { kind: 'none', until: breaker.probeAt };
}

/** What one delivery round did, by order: some event delivered, or the oldest one failed. */
export interface RoundOutcome {
  /** Orders the endpoint took at least one event of. */
  readonly delivered: readonly string[];
  /** Orders whose next event the endpoint did not take, and the last answer in words. */
  readonly failed: readonly { readonly orderId: string; readonly failure: string }[];
}

/**
 * The breaker after a delivery round that ended at `now`. Anything delivered closes it (the
 * endpoint answers). Failures only: a closed breaker counts the distinct orders and opens at
 * {@link OPEN_AFTER_ORDERS}; an open one (that round was its probe, or an operator's redelivery)
 * waits longer before the next probe: `firstWaitMs` doubling to an hour, as an order's retries.
 */
export function breakerAfter(
  breaker: EndpointBreaker,
  round: RoundOutcome,
  now: number,
  firstWaitMs?: number,
): EndpointBreaker {
  if (round.delivered.length > 0) return CLOSED;
  const last = round.failed.at(-1);
  if (!last) return breaker;
  if (breaker.state === 'open') {
    const probes = breaker.probes + 1;
    return {
      ...breaker,
      probes,
      probeAt: now + retryWaitMs(probes, firstWaitMs),
      lastFailure: last.failure,
    };
  }
  const failedOrders = [
    ...new Set([...breaker.failedOrders, ...round.failed.map((f) => f.orderId)]),
  ];
  if (failedOrders.length < OPEN_AFTER_ORDERS) return { state: 'closed', failedOrders };
  return {
    state: 'open',
    since: now,
    probes: 0,
    probeAt: now + retryWaitMs(0, firstWaitMs),
    lastFailure: last.failure,
  };
}

/** What the delivery workflow publishes (its memo): workers read it before trying again. */
export const breakerMark = (breaker: EndpointBreaker): BreakerMark =>
  breaker.state === 'open' ? BreakerMark.OPEN : BreakerMark.CLOSED;
