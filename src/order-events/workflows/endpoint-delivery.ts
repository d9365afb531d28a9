/**
 * `deliverOrderEventsToEndpoint`, the durable path (../README.md). It closes once it holds nothing;
 * the next hand-over starts it again (a signal that arrives as it closes is not lost: the server
 * refuses the completion and the workflow takes it first).
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  endpointEventsStateQuery,
  orderEventsHandedOverSignal,
  redeliverOrderUpdate,
  type EndpointDeliveryMemo,
  type EndpointDeliverySettings,
  type EndpointEventsState,
  type OrderEventActivities,
  type OrderEventsState,
  type OrderRoundResult,
  type RoundPart,
} from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { OrderEventsDeliveryKey } from '../../shared/search-attributes';
import {
  DELIVER_ROUND_ACTIVITY,
  HAND_OVER_TO_ORDERS_ACTIVITY,
} from '../../workflows/activity-options';
import { failureFacts } from '../../workflows/failure-facts';
import { iso } from '../../workflows/guard/guard-decisions';
import { waitUntil } from '../../workflows/wait';
import {
  afterRound,
  breakerClosed,
  breakerOpened,
  EMPTY_BACKLOG,
  heldEvents,
  hold,
  holds,
  MAX_ROUND_EVENTS,
  nextDueAt,
  parkExpired,
  redeliver,
  roundAt,
  type Backlog,
} from './endpoint-backlog';
import { backlogMark, failingOrders, orderState } from './endpoint-marks';
import {
  breakerAfter,
  breakerAllows,
  breakerMark,
  CLOSED,
  type EndpointBreaker,
} from './endpoint-breaker';
import { defined } from '../../shared/defined';

export interface EndpointDeliveryInput extends EndpointDeliverySettings {
  /** What a previous run handed over with `continueAsNew`. */
  readonly carried?: {
    readonly backlog: Backlog;
    readonly breaker: EndpointBreaker;
    readonly delivered: number;
  };
}

class EndpointDelivery {
  backlog: Backlog;
  breaker: EndpointBreaker;
  delivered: number;
  /** Events for the overflow (endpoint-backlog.ts `hold`). */
  toSpill: OrderEvent[] = [];
  /** A wait ends early: events that may go now, or an operator's redelivery. */
  wake = false;
  /** What the search attribute and the memo say now. */
  #published: { mark: unknown; memo: EndpointDeliveryMemo | undefined };

  constructor(readonly input: EndpointDeliveryInput) {
    this.backlog = input.carried?.backlog ?? EMPTY_BACKLOG;
    this.breaker = input.carried?.breaker ?? CLOSED;
    this.delivered = input.carried?.delivered ?? 0;
    const info = workflowInfo();
    this.#published = {
      mark: info.typedSearchAttributes.get(OrderEventsDeliveryKey),
      memo: info.memo as EndpointDeliveryMemo | undefined,
    };
  }

  hold(events: readonly OrderEvent[]): void {
    const held = hold(this.backlog, events, Date.now(), {
      failing: this.breaker.state === 'open',
      ...defined({ maxHeld: this.input.maxHeldEvents }),
    });
    this.backlog = held.backlog;
    this.toSpill.push(...held.spill);
    // While the breaker is open nothing goes before the probe: a new event wakes nobody, but
    // the failing orders' count (the gauge) takes it in at once.
    if (this.breaker.state === 'closed' || held.spill.length > 0) this.wake = true;
    this.publish();
  }

  holds(orderId: string): void {
    if (!holds(this.backlog, orderId))
      throw new Error(`order ${orderId} has no events waiting in this delivery`);
  }

  redeliver(orderId: string): OrderEventsState {
    this.backlog = redeliver(this.backlog, orderId, Date.now());
    this.wake = true;
    this.publish();
    return orderState(
      this.backlog.orders.find((o) => o.orderId === orderId)!,
      this.breaker,
    );
  }

  /** A round's answers: the backlog and the breaker, and the orders when the breaker turned. */
  answered(sent: readonly RoundPart[], results: readonly OrderRoundResult[]): void {
    const now = Date.now();
    const before = this.breaker;
    const firstWait = this.input.firstRetryWaitMs;
    this.backlog = afterRound(this.backlog, sent, results, now, firstWait);
    this.breaker = breakerAfter(this.breaker, results, now, firstWait);
    if (before.state === 'closed' && this.breaker.state === 'open')
      this.backlog = breakerOpened(this.backlog, now);
    if (before.state === 'open' && this.breaker.state === 'closed')
      this.backlog = breakerClosed(this.backlog);
    this.delivered += results.reduce((n, r) => n + r.delivered, 0);
  }

  busy(): boolean {
    return this.backlog.orders.length > 0 || this.toSpill.length > 0;
  }

  /** The search attribute and the memo, written when they change. */
  publish(): void {
    const mark = backlogMark(this.backlog);
    if (mark !== this.#published.mark) {
      upsertSearchAttributes([{ key: OrderEventsDeliveryKey, value: mark }]);
      this.#published.mark = mark;
    }
    const memo: EndpointDeliveryMemo = {
      breaker: breakerMark(this.breaker),
      failingOrders: failingOrders(this.backlog),
    };
    const was = this.#published.memo;
    if (was?.breaker !== memo.breaker || was.failingOrders !== memo.failingOrders) {
      upsertMemo({ ...memo });
      this.#published.memo = memo;
    }
  }

  state(): EndpointEventsState {
    const b = this.breaker;
    return {
      breaker: {
        mark: breakerMark(b),
        ...(b.state === 'open'
          ? { since: iso(b.since), lastFailure: b.lastFailure, nextProbeAt: iso(b.probeAt) }
          : {}),
      },
      held: heldEvents(this.backlog),
      delivered: this.delivered,
      orders: this.backlog.orders.map((o) => orderState(o, b)),
    };
  }
}

const { deliverOrderEventRound } = proxyActivities<OrderEventActivities>(DELIVER_ROUND_ACTIVITY);
const { handOverToOrderWorkflows } = proxyActivities<OrderEventActivities>(
  HAND_OVER_TO_ORDERS_ACTIVITY,
);

export async function deliverOrderEventsToEndpoint(
  input: EndpointDeliveryInput = {},
): Promise<EndpointEventsState> {
  const run = new EndpointDelivery(input);
  setHandler(orderEventsHandedOverSignal, (events) => run.hold(events));
  setHandler(endpointEventsStateQuery, () => run.state());
  setHandler(redeliverOrderUpdate, (orderId) => run.redeliver(orderId), {
    validator: (orderId) => run.holds(orderId),
  });
  while (run.busy()) {
    await step(run);
    run.publish();
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      const { backlog, breaker, delivered } = run;
      const { carried: _carried, ...settings } = input;
      return continueAsNew<typeof deliverOrderEventsToEndpoint>({
        ...settings,
        carried: { backlog, breaker, delivered },
      });
    }
  }
  await condition(allHandlersFinished);
  return run.state();
}

/** One step: spill events to the overflow, or send a round, or wait until one is due. */
async function step(run: EndpointDelivery): Promise<void> {
  const now = Date.now();
  run.backlog = parkExpired(run.backlog, now);
  if (run.toSpill.length > 0) {
    await handOverToOrderWorkflows(run.toSpill.splice(0, MAX_ROUND_EVENTS));
    return;
  }
  const round = roundAt(run.backlog, breakerAllows(run.breaker, now), now);
  if (round.length > 0) {
    run.answered(round, await deliverRound(round));
    return;
  }
  run.wake = false;
  // Hand-overs fill the history while it waits: it continues as new when the server suggests it.
  const woken = () => run.wake || workflowInfo().continueAsNewSuggested;
  const due = nextDueAt(run.backlog, run.breaker, now);
  const summary = 'Next delivery round due (retry, parking or probe)';
  await waitUntil(woken, due === undefined ? undefined : { ms: Math.max(1, due - now), summary });
}

/** The round's answers; an activity that failed as a whole failed every order of it. */
async function deliverRound(round: readonly RoundPart[]): Promise<readonly OrderRoundResult[]> {
  try {
    return await deliverOrderEventRound(round);
  } catch (err) {
    const failure = failureFacts(err).message;
    return round.map((part) => ({ orderId: part.orderId, delivered: 0, failure }));
  }
}
