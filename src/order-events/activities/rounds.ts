/**
 * A round of the endpoint's delivery (`deliverOrderEventRound`), orders side by side. The endpoint's
 * answers are results (the workflow decides on them): it throws only when this worker cannot send.
 */
import { setMaxListeners } from 'node:events';
import { Context } from '@temporalio/activity';
import { forEachLimited } from '../../catalogue/limiter';
import type { OrderRoundResult, RoundPart } from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { logAnswer, posterOf, type PostAnswer, type Poster } from './post';

/** A POST that takes longer is abandoned and retried: a slow endpoint holds no slot for long. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A round starts no POST after this long (DELIVER_ROUND_ACTIVITY in activity-options.ts). */
export const ROUND_BUDGET_MS = 45_000;
/** Orders a round POSTs side by side. */
export const ROUND_CONCURRENCY = 10;
/** Attempts of one event within a round, and the waits between them. */
const ROUND_ATTEMPT_WAITS_MS = [2_000, 4_000];

export function roundDelivery(post: Poster | undefined, timeoutMs: number) {
  return async (round: readonly RoundPart[]): Promise<OrderRoundResult[]> => {
    const send = posterOf(post);
    const ctx = Context.current();
    // Each POST listens to the activity's cancellation until it ends: a round's side by side,
    // and the SDK's own, are more than node's default of 10 before it warns of a leak.
    setMaxListeners(ROUND_CONCURRENCY + 5, ctx.cancellationSignal);
    const beat = setInterval(() => ctx.heartbeat(), 5_000);
    const until = Date.now() + ROUND_BUDGET_MS;
    const attempt = async (event: OrderEvent) => {
      const answer = await send(event, timeoutMs);
      logAnswer(event, answer);
      return answer;
    };
    const results = new Map<string, OrderRoundResult>();
    try {
      await forEachLimited(
        round,
        { concurrency: ROUND_CONCURRENCY, perSecond: 0 },
        async (part) => {
          results.set(part.orderId, await sendPart(part, attempt, until));
        },
      );
    } finally {
      clearInterval(beat);
    }
    return round.map((part) => results.get(part.orderId)!);
  };
}

/** One order's events, oldest first, until one is not taken or the round's budget is spent. */
async function sendPart(
  part: RoundPart,
  attempt: (event: OrderEvent) => Promise<PostAnswer>,
  until: number,
): Promise<OrderRoundResult> {
  let delivered = 0;
  for (const event of part.events) {
    if (Date.now() >= until) break;
    let answer = await attempt(event);
    for (const waitMs of ROUND_ATTEMPT_WAITS_MS) {
      if (answer.delivered || Date.now() + waitMs > until) break;
      await Context.current().sleep(waitMs);
      answer = await attempt(event);
    }
    if (!answer.delivered) return { orderId: part.orderId, delivered, failure: answer.failure };
    delivered += 1;
  }
  return { orderId: part.orderId, delivered };
}
