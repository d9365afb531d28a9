/** What the endpoint's delivery shows of its backlog; pure, tested in endpoint-backlog.test.ts. */
import { DeliveryMark, type OrderEventsState } from '../contract/delivery';
import { eventsState } from './decisions';
import type { Backlog, HeldOrder } from './endpoint-backlog';
import type { EndpointBreaker } from './endpoint-breaker';

export function orderMark(order: HeldOrder): DeliveryMark {
  if (order.parked) return DeliveryMark.UNDELIVERED;
  return order.failingSince !== undefined ? DeliveryMark.FAILING : DeliveryMark.DELIVERED;
}

/** The delivery's mark: FAILING while any order is, else UNDELIVERED while any is parked. */
export function backlogMark(backlog: Backlog): DeliveryMark {
  const marks = new Set(backlog.orders.map(orderMark));
  if (marks.has(DeliveryMark.FAILING)) return DeliveryMark.FAILING;
  return marks.has(DeliveryMark.UNDELIVERED) ? DeliveryMark.UNDELIVERED : DeliveryMark.DELIVERED;
}

/** Orders whose events are FAILING or UNDELIVERED (the `hotel_order_events_failing` gauge). */
export const failingOrders = (backlog: Backlog): number =>
  backlog.orders.filter((o) => orderMark(o) !== DeliveryMark.DELIVERED).length;

/** An order as `events list` shows it; while the breaker is open, its next attempt is the probe. */
export function orderState(order: HeldOrder, breaker: EndpointBreaker): OrderEventsState {
  const probing = breaker.state === 'open' && !order.parked && !order.forced;
  const next = probing ? breaker.probeAt : order.nextAttemptAt;
  return eventsState({
    ...order,
    mark: orderMark(order),
    lastFailure: order.lastFailure ?? (breaker.state === 'open' ? breaker.lastFailure : undefined),
    nextAttemptAt: order.parked ? undefined : next,
  });
}
