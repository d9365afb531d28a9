/** The endpoint's breaker (../README.md): one order failing alone does not open it. Pure. */
import { BreakerMark, type OrderRoundResult } from '../contract/delivery';
import { retryWaitMs } from './decisions';

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

/** The breaker after a round that ended at `now`: anything delivered closes it. */
export function breakerAfter(
  breaker: EndpointBreaker,
  round: readonly OrderRoundResult[],
  now: number,
  firstWaitMs?: number,
): EndpointBreaker {
  if (round.some((r) => r.delivered > 0)) return CLOSED;
  const failed = round.filter((r) => r.failure !== undefined);
  const last = failed.at(-1);
  if (last?.failure === undefined) return breaker;
  if (breaker.state === 'open') {
    const probes = breaker.probes + 1;
    return {
      ...breaker,
      probes,
      probeAt: now + retryWaitMs(probes, firstWaitMs),
      lastFailure: last.failure,
    };
  }
  const failedOrders = [...new Set([...breaker.failedOrders, ...failed.map((f) => f.orderId)])];
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
