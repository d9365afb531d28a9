/**
 * The direct POST in front of the durable path: this worker's view of the endpoint and its route.
 * A failure pauses direct attempts; then one announcement asks the breaker before trying again.
 */
import { log } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  BreakerMark,
  endpointDeliveryWorkflowId,
  type EndpointDeliveryMemo,
} from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { logFields, type Poster } from './post';

/** How long a direct attempt waits for the order system: the booking's workflow task waits too. */
export const DIRECT_DELIVERY_TIMEOUT_MS = 1_000;

/** How long after a failed direct attempt (or an open breaker) this worker hands every event over. */
export const DIRECT_DELIVERY_PAUSE_MS = 30_000;

/** A direct attempt unanswered this long is a sign: events announced meanwhile hand over. */
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

/** The state once a direct attempt that started at `startedAt` ended at `now`. */
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

/**
 * This worker's direct route (one view of the endpoint, shared by its announcements): true when
 * the endpoint took `event` at once, false when the event goes to the durable path.
 */
export function directRoute(post: Poster, pauseMs?: number) {
  let state: DirectDeliveryState = ANSWERING;
  return async (event: OrderEvent, client: Client, taskQueue: string): Promise<boolean> => {
    let startedAt = Date.now();
    const choice = chooseDirect(state, startedAt);
    state = choice.next;
    let go = choice.choice === 'post';
    if (choice.choice === 'ask') {
      const asked = afterAsk(await breakerOpen(client, taskQueue), Date.now(), pauseMs);
      state = asked.next;
      go = asked.post;
      startedAt = Date.now();
    }
    if (!go) return false;
    const answer = await post(event, DIRECT_DELIVERY_TIMEOUT_MS);
    state = afterDirect(state, startedAt, answer.delivered, Date.now(), pauseMs);
    if (answer.delivered)
      log.info('Order event delivered', {
        ...logFields(event),
        status: answer.status,
        direct: true,
      });
    else
      log.info("Order event not delivered at once: handed to the endpoint's delivery", {
        ...logFields(event),
        answer: answer.failure,
      });
    return answer.delivered;
  };
}

/**
 * Whether the endpoint's delivery says its breaker is open (its memo). Not running: closed (it
 * holds nothing). Unreadable: open, so this worker's bookings do not wait on the endpoint.
 */
async function breakerOpen(client: Client, bookingTaskQueue: string): Promise<boolean> {
  try {
    const wf = await client.workflow
      .getHandle(endpointDeliveryWorkflowId(bookingTaskQueue))
      .describe();
    if (wf.status.name !== 'RUNNING') return false;
    return (wf.memo as Partial<EndpointDeliveryMemo> | undefined)?.breaker === BreakerMark.OPEN;
  } catch (err) {
    return !(err instanceof WorkflowNotFoundError);
  }
}
