/** One POST of an order event, signed the Standard Webhooks way, and what the logs say of it. */
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Webhook } from 'standardwebhooks';
import { orderEventBody, type OrderEvent } from '../contract/event';
import { httpPoster } from './http-post';

export function logAnswer(event: OrderEvent, answer: PostAnswer): void {
  const fields = logFields(event);
  if (answer.delivered) log.info('Order event delivered', { ...fields, status: answer.status });
  else if (answer.status === undefined)
    log.warn('Order event not delivered: no answer', { ...fields, error: answer.error });
  else log.warn('Order event not delivered', { ...fields, status: answer.status });
}

/** What the logs say of an event: ids and type, never the body. */
export const logFields = (event: OrderEvent) => ({
  orderId: event.data.orderId,
  eventId: event.id,
  type: event.type,
});

/** What one POST of an event got: a 2xx, another status, or no answer in time. */
export type PostAnswer =
  | { readonly delivered: true; readonly status: number }
  | {
      readonly delivered: false;
      readonly status?: number;
      readonly error?: string;
      /** In words, for the delivery's `lastFailure`. */
      readonly failure: string;
    };

/** A signed POST of an event to the endpoint; no answer within `timeoutMs` is a failed one. */
export function signedPoster(endpoint: { readonly url: string; readonly secret: string }) {
  const webhook = new Webhook(endpoint.secret);
  const send = httpPoster(endpoint.url);
  return async (event: OrderEvent, timeoutMs: number): Promise<PostAnswer> => {
    const body = JSON.stringify(orderEventBody(event));
    const at = new Date();
    const answer = await send({
      headers: {
        'content-type': 'application/json',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': webhook.sign(event.id, at, body),
      },
      body,
      timeoutMs,
      cancel: Context.current().cancellationSignal,
    });
    if ('noAnswer' in answer) {
      const error = answer.noAnswer;
      return { delivered: false, error, failure: `no answer from the order system (${error})` };
    }
    const { status } = answer;
    if (status >= 200 && status <= 299) return { delivered: true, status };
    return { delivered: false, status, failure: `the order system answered HTTP ${status}` };
  };
}

export type Poster = ReturnType<typeof signedPoster>;

/** This worker's POST; a worker without `ORDER_EVENTS_URL` fails the attempt (another retries). */
export function posterOf(post: Poster | undefined): Poster {
  if (post) return post;
  throw ApplicationFailure.retryable(
    'ORDER_EVENTS_URL is not set on this worker: the event waits for a worker that has it',
    'NOT_CONFIGURED',
  );
}
