/**
 * What the endpoint's delivery workflow holds: the events the endpoint did not take at once, by
 * order, and the decisions on them: where a handed-over event goes, which events a round sends,
 * what its answers change, when an order is parked. Pure and unit-tested
 * (test/workflows/endpoint-backlog.test.ts); what it shows (marks, `events list`) is in
 * endpoint-marks.ts, the breaker's own decisions in endpoint-breaker.ts.
 *
 * In order per order: a round sends an order's events oldest first and the activity stops at the
 * first one the endpoint does not take; the rest wait behind it. Orders do not wait for each
 * other.
 */
import type { OrderEvent, OrderRoundResult, RoundPart } from '../../shared/order-events';
import type { BreakerAllows, EndpointBreaker } from './endpoint-breaker';
import { enqueue, keepRetrying, retryWaitMs, RETRY_WINDOW_MS } from './order-event-decisions';

/** One order's events held for the endpoint. */
export interface HeldOrder {
  readonly orderId: string;
  /** Waiting, in sequence order: the first goes next. */
  readonly events: readonly OrderEvent[];
  /** The highest sequence delivered: an announcement retried after it went through is dropped. */
  readonly lastDelivered: number;
  readonly delivered: number;
  /** Since when its oldest event fails (or the breaker held it back). */
  readonly failingSince?: number;
  readonly lastFailure?: string;
  /** Failed rounds of its oldest event: the wait before the next doubles with each. */
  readonly rounds: number;
  /** Not tried before this time; absent: due. */
  readonly nextAttemptAt?: number;
  /** Failed for the whole retry window: waits for `events redeliver`. */
  readonly parked?: boolean;
  /** `events redeliver` asked for an attempt now, whatever the breaker says. */
  readonly forced?: boolean;
}

export interface Backlog {
  /** In the order they were first handed over. */
  readonly orders: readonly HeldOrder[];
  /**
   * Orders handed to workflows of their own because this one held {@link MAX_HELD_EVENTS}: their
   * later events follow them there (the latest {@link SPILLED_REMEMBERED}).
   */
  readonly spilled: readonly string[];
}

export const EMPTY_BACKLOG: Backlog = { orders: [], spilled: [] };

/**
 * Events one delivery workflow holds (about 400 bytes each, carried across continue-as-new, whose
 * input must stay well under Temporal's 2 MB payload limit). A new order beyond it gets a
 * delivery workflow of its own (`order-events-<orderId>`), as before this one existed.
 */
export const MAX_HELD_EVENTS = 2_000;
/** Events one round sends (one activity). */
export const MAX_ROUND_EVENTS = 100;
/** How many spilled orders are remembered, so that their stragglers follow them. */
export const SPILLED_REMEMBERED = 1_000;

export const heldEvents = (backlog: Backlog): number =>
  backlog.orders.reduce((n, o) => n + o.events.length, 0);

/**
 * The backlog with `events` held, and those to hand to their orders' own workflows: an order that
 * went there before, or a new order once {@link MAX_HELD_EVENTS} are held. `failing`: the breaker
 * is open, so a new order fails from now on.
 */
export function hold(
  backlog: Backlog,
  events: readonly OrderEvent[],
  now: number,
  options: { readonly failing: boolean; readonly maxHeld?: number },
): { readonly backlog: Backlog; readonly spill: readonly OrderEvent[] } {
  const orders = [...backlog.orders];
  let spilled = [...backlog.spilled];
  const spill: OrderEvent[] = [];
  let held = heldEvents(backlog);
  for (const event of events) {
    const orderId = event.data.orderId;
    if (spilled.includes(orderId)) {
      spill.push(event);
      continue;
    }
    const i = orders.findIndex((o) => o.orderId === orderId);
    if (i >= 0) {
      const order = orders[i]!;
      const queued = enqueue(order.events, event, order.lastDelivered);
      held += queued.length - order.events.length;
      orders[i] = { ...order, events: queued };
    } else if (held >= (options.maxHeld ?? MAX_HELD_EVENTS)) {
      spill.push(event);
      spilled = [...spilled, orderId].slice(-SPILLED_REMEMBERED);
    } else {
      held += 1;
      orders.push({
        orderId,
        events: [event],
        lastDelivered: 0,
        delivered: 0,
        rounds: 0,
        ...(options.failing ? { failingSince: now } : {}),
      });
    }
  }
  return { backlog: { orders, spilled }, spill };
}

/**
 * What a round sends at `now`: with the breaker closed, every due order (oldest orders first, at
 * most `max` events); open, one order as its probe once it is time; and, whatever the breaker
 * says, the orders an operator redelivered.
 */
export function roundAt(
  backlog: Backlog,
  allows: BreakerAllows,
  now: number,
  max = MAX_ROUND_EVENTS,
): readonly RoundPart[] {
  const waiting = backlog.orders.filter((o) => o.events.length > 0);
  const forced = waiting.filter((o) => o.forced);
  const open = waiting.filter((o) => !o.forced && !o.parked);
  const chosen =
    allows.kind === 'all'
      ? [...forced, ...open.filter((o) => (o.nextAttemptAt ?? 0) <= now)]
      : allows.kind === 'probe' && forced.length === 0
        ? open.slice(0, 1)
        : forced;
  const parts: RoundPart[] = [];
  let budget = max;
  for (const o of chosen) {
    if (budget <= 0) break;
    const events = o.events.slice(0, budget);
    budget -= events.length;
    parts.push({ orderId: o.orderId, events });
  }
  return parts;
}

/**
 * When the next round is due (epoch ms), or undefined: nothing until an event is handed over or
 * redelivered. Includes the moment a failing order is parked.
 */
export function nextDueAt(
  backlog: Backlog,
  breaker: EndpointBreaker,
  now: number,
): number | undefined {
  const times: number[] = [];
  for (const o of backlog.orders) {
    if (o.parked || o.events.length === 0) continue;
    times.push(breaker.state === 'open' ? breaker.probeAt : (o.nextAttemptAt ?? now));
    if (o.failingSince !== undefined) times.push(o.failingSince + RETRY_WINDOW_MS);
  }
  return times.length > 0 ? Math.min(...times) : undefined;
}

/**
 * The backlog after a round that ended at `now`: delivered events gone, an order whose next event
 * failed waits `firstWaitMs` doubling to an hour (parked after the retry window), an order left
 * with nothing gone from the backlog.
 */
export function afterRound(
  backlog: Backlog,
  sent: readonly RoundPart[],
  results: readonly OrderRoundResult[],
  now: number,
  firstWaitMs?: number,
): Backlog {
  const orders: HeldOrder[] = [];
  for (const order of backlog.orders) {
    const part = sent.find((p) => p.orderId === order.orderId);
    const result = results.find((r) => r.orderId === order.orderId);
    if (!part || !result) {
      orders.push(order);
      continue;
    }
    const went = part.events.slice(0, result.delivered);
    const goneIds = new Set(went.map((e) => e.id));
    const events = order.events.filter((e) => !goneIds.has(e.id));
    const lastDelivered = Math.max(order.lastDelivered, ...went.map((e) => e.data.sequence));
    const base = { ...order, events, lastDelivered, delivered: order.delivered + went.length };
    if (result.failure === undefined) {
      if (events.length === 0) continue;
      orders.push(withoutFailure(base));
      continue;
    }
    // A delivered event makes the next one the oldest: its failing starts now.
    const fresh = went.length > 0;
    const failingSince = fresh ? now : (order.failingSince ?? now);
    const rounds = (fresh ? 0 : order.rounds) + 1;
    const parked = !keepRetrying(failingSince, now);
    const { nextAttemptAt: _next, forced: _forced, ...rest } = base;
    orders.push({
      ...rest,
      failingSince,
      lastFailure: result.failure,
      rounds,
      ...(parked
        ? { parked: true }
        : { nextAttemptAt: now + retryWaitMs(rounds - 1, firstWaitMs) }),
    });
  }
  return { ...backlog, orders };
}

function withoutFailure(order: HeldOrder): HeldOrder {
  const {
    failingSince: _since,
    lastFailure: _last,
    nextAttemptAt: _next,
    parked: _parked,
    forced: _forced,
    ...rest
  } = order;
  return { ...rest, rounds: 0 };
}

/** The breaker opened at `now`: every order held fails from now on (if it did not already). */
export function breakerOpened(backlog: Backlog, now: number): Backlog {
  return {
    ...backlog,
    orders: backlog.orders.map((o) =>
      o.failingSince === undefined ? { ...o, failingSince: now } : o,
    ),
  };
}

/** The breaker closed (the endpoint answers again): every order not parked is due at once. */
export function breakerClosed(backlog: Backlog): Backlog {
  return {
    ...backlog,
    orders: backlog.orders.map((o) => {
      if (o.parked) return o;
      const { nextAttemptAt: _next, ...rest } = o;
      return { ...rest, rounds: 0 };
    }),
  };
}

/** Orders failing for the whole retry window are parked until `events redeliver`. */
export function parkExpired(backlog: Backlog, now: number): Backlog {
  return {
    ...backlog,
    orders: backlog.orders.map((o) => {
      if (o.parked || o.forced || o.failingSince === undefined) return o;
      if (keepRetrying(o.failingSince, now)) return o;
      const { nextAttemptAt: _next, ...rest } = o;
      return { ...rest, parked: true };
    }),
  };
}

/**
 * `events redeliver <orderId>`: its oldest event is tried at once, whatever the breaker says; a
 * parked order is retried for another retry window.
 */
export function redeliver(backlog: Backlog, orderId: string, now: number): Backlog {
  return {
    ...backlog,
    orders: backlog.orders.map((o) => {
      if (o.orderId !== orderId) return o;
      const { nextAttemptAt: _next, parked: _parked, ...rest } = o;
      return o.parked
        ? { ...rest, forced: true, failingSince: now, rounds: 0 }
        : { ...rest, forced: true };
    }),
  };
}

export const holds = (backlog: Backlog, orderId: string): boolean =>
  backlog.orders.some((o) => o.orderId === orderId);
