/** The endpoint delivery's backlog by order and its decisions, pure; shown by endpoint-marks.ts. */
import type { OrderRoundResult, RoundPart } from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import type { BreakerAllows, EndpointBreaker } from './endpoint-breaker';
import { enqueue, keepRetrying, retryWaitMs, RETRY_WINDOW_MS } from './decisions';

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
  /** Orders spilled to the overflow (the latest {@link SPILLED_REMEMBERED}): their events follow. */
  readonly spilled: readonly string[];
}

export const EMPTY_BACKLOG: Backlog = { orders: [], spilled: [] };

/**
 * Events one delivery workflow holds (~400 bytes each, carried across continue-as-new: well under
 * the 2 MB payload limit); a new order beyond it goes to the overflow.
 */
export const MAX_HELD_EVENTS = 2_000;
/** Events one round sends (one activity). */
export const MAX_ROUND_EVENTS = 100;
/** How many spilled orders are remembered, so that their stragglers follow them. */
export const SPILLED_REMEMBERED = 1_000;

export const heldEvents = (backlog: Backlog): number =>
  backlog.orders.reduce((n, o) => n + o.events.length, 0);

/**
 * The backlog with `events` held, and those to spill: an order spilled before, or a new one once
 * {@link MAX_HELD_EVENTS} are held. `failing`: the breaker is open, so a new order fails from now.
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

/** What a round sends at `now`: what the breaker allows, and the orders an operator redelivered. */
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

/** When the next round (or a parking) is due, epoch ms; undefined: none until a hand-over. */
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

/** The backlog after a round that ended at `now`; a failed order waits, or is parked. */
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
      if (events.length > 0) orders.push({ ...base, ...NOT_FAILING });
      continue;
    }
    // A delivered event makes the next one the oldest: its failing starts now.
    const fresh = went.length > 0;
    const failingSince = fresh ? now : (order.failingSince ?? now);
    const rounds = (fresh ? 0 : order.rounds) + 1;
    const parked = !keepRetrying(failingSince, now);
    orders.push({
      ...base,
      forced: undefined,
      failingSince,
      lastFailure: result.failure,
      rounds,
      ...(parked
        ? { parked: true, nextAttemptAt: undefined }
        : { nextAttemptAt: now + retryWaitMs(rounds - 1, firstWaitMs) }),
    });
  }
  return { ...backlog, orders };
}

/** An order none of whose events fails (undefined fields are absent once carried as JSON). */
const NOT_FAILING = {
  failingSince: undefined,
  lastFailure: undefined,
  nextAttemptAt: undefined,
  parked: undefined,
  forced: undefined,
  rounds: 0,
} as const;

/** The backlog with `f` applied to each order. */
const eachOrder = (backlog: Backlog, f: (o: HeldOrder) => HeldOrder): Backlog => ({
  ...backlog,
  orders: backlog.orders.map(f),
});

/** The breaker opened at `now`: every order held fails from now on (if it did not already). */
export const breakerOpened = (backlog: Backlog, now: number): Backlog =>
  eachOrder(backlog, (o) => (o.failingSince === undefined ? { ...o, failingSince: now } : o));

/** The breaker closed (the endpoint answers again): every order not parked is due at once. */
export const breakerClosed = (backlog: Backlog): Backlog =>
  eachOrder(backlog, (o) => (o.parked ? o : { ...o, nextAttemptAt: undefined, rounds: 0 }));

/** Orders failing for the whole retry window are parked until `events redeliver`. */
export function parkExpired(backlog: Backlog, now: number): Backlog {
  return eachOrder(backlog, (o) => {
    if (o.parked || o.forced || o.failingSince === undefined) return o;
    if (keepRetrying(o.failingSince, now)) return o;
    return { ...o, nextAttemptAt: undefined, parked: true };
  });
}

/** `events redeliver <orderId>`: tried at once whatever the breaker; parked, for another window. */
export function redeliver(backlog: Backlog, orderId: string, now: number): Backlog {
  return eachOrder(backlog, (o) => {
    if (o.orderId !== orderId) return o;
    const retried = { ...o, nextAttemptAt: undefined, parked: undefined, forced: true };
    return o.parked ? { ...retried, failingSince: now, rounds: 0 } : retried;
  });
}

export const holds = (backlog: Backlog, orderId: string): boolean =>
  backlog.orders.some((o) => o.orderId === orderId);
