/**
 * One HTTP POST to the order system and what answered it (docs/order-events.md, "What counts as
 * an answer"): the final answer's status at its head, or no answer, named by its code. Redirects
 * are not followed; at most {@link MAX_ANSWER_BYTES} of a body is read. node's http clients, not
 * undici's: undici fails the exchange on an unasked-for interim `100 Continue`.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** The most of an answer's body read before its connection is closed. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** An idle kept connection closes after this, before the endpoint closes it under a POST. */
const IDLE_CONNECTION_MS = 4_000;

/** The final answer's status, or no answer and why: a code (`ECONNRESET`, `TIMEOUT`, …). */
export type Exchanged = { readonly status: number } | { readonly noAnswer: string };

export interface Outgoing {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The whole exchange, from connecting to the final answer's head, ms. */
  readonly timeoutMs: number;
  /** Aborts it (the activity was cancelled). */
  readonly cancel?: AbortSignal;
}

/** POSTs to `url` (http or https), connections kept alive between POSTs. */
export function httpPoster(url: string): (out: Outgoing) => Promise<Exchanged> {
  const target = new URL(url);
  const tls = target.protocol === 'https:';
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
  const agent = tls ? new HttpsAgent(options) : new HttpAgent(options);
  const send = tls ? httpsRequest : httpRequest;
  return (out) =>
    new Promise<Exchanged>((resolve) => {
      const headers = { ...out.headers, 'content-length': String(Buffer.byteLength(out.body)) };
      let req: ClientRequest;
      try {
        req = send(target, { method: 'POST', agent, headers });
      } catch (err) {
        return resolve({ noAnswer: codeOf(err) });
      }
      exchange(req, out, resolve);
    });
}

/** Settles `done`; a plain timer is the deadline (a composed `AbortSignal` can be collected first). */
function exchange(req: ClientRequest, out: Outgoing, done: (answer: Exchanged) => void): void {
  const stop = (code: string) => req.destroy(Object.assign(new Error(code), { code }));
  const deadline = setTimeout(() => stop('TIMEOUT'), out.timeoutMs);
  const cancelled = () => stop('CANCELLED');
  out.cancel?.addEventListener('abort', cancelled);
  req.on('close', () => {
    clearTimeout(deadline);
    out.cancel?.removeEventListener('abort', cancelled);
    done({ noAnswer: 'CLOSED' });
  });
  req.on('error', (err) => done({ noAnswer: codeOf(err) }));
  req.on('response', (res) => {
    done({ status: res.statusCode ?? 0 });
    let read = 0;
    res.on('error', () => undefined);
    res.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_ANSWER_BYTES) req.destroy();
    });
  });
  // A switch of protocols nobody asked for: its status, and the connection closed.
  req.on('upgrade', (res, socket) => {
    socket.destroy();
    done({ status: res.statusCode ?? 101 });
    req.destroy();
  });
  if (out.cancel?.aborted) cancelled();
  req.end(out.body);
}

/** An error's code, for logs and `events list`: letters, digits and `_` only, never a message. */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'ERROR';
}
