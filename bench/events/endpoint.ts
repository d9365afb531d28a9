/**
 * The order system's endpoint the `events` part sends order events to: one that answers 204 at
 * once, or one that takes every request and never answers (each delivery attempt then waits for
 * its timeout).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Endpoint {
  readonly url: string;
  /** Requests received so far (a hanging endpoint holds each one). */
  held(): number;
  /** POSTs received so far: one an attempt at an event (answered or not). */
  posts(): number;
  /** Events received so far: POSTs of distinct `webhook-id`s (an event keeps its id on every attempt). */
  events(): number;
  close(): Promise<void>;
}

/** An order system's endpoint: answering 204 at once, or taking every request and never answering. */
export async function startEndpoint(hang: boolean): Promise<Endpoint> {
  const held: ServerResponse[] = [];
  let count = 0;
  let posts = 0;
  const ids = new Set<string>();
  const server = createServer((req, res) => {
    count += 1;
    if (req.method === 'POST') {
      posts += 1;
      ids.add(String(req.headers['webhook-id']));
    }
    if (hang) held.push(res);
    else req.resume().on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/order-events`,
    held: () => count,
    posts: () => posts,
    events: () => ids.size,
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
