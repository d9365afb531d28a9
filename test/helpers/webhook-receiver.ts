/**
 * An order system's endpoint for order events, as a receiver not ours would write it: every
 * request verified with the `standardwebhooks` library (signature, timestamp tolerance), the
 * verified events kept per order in arrival order, every attempt recorded (its `webhook-id` and
 * status). It can be told to fail (an HTTP status for the next N requests) or to hang.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  readonly id: string;
  readonly type: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown> & { orderId: string; sequence: number };
}

export interface Attempt {
  readonly id: string | undefined;
  readonly status: number;
  readonly verified: boolean;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly secret: string;
  /** Verified events of `orderId`, in arrival order, a redelivered id once. */
  events(orderId: string): ReceivedEvent[];
  /** Every verified body received, as text (for the personal-data check). */
  bodies(): string[];
  attempts(): Attempt[];
  /**
   * Answers `status` to the next `times` requests (Infinity: until told otherwise), or only to
   * those of events of type `onlyType` (an order system whose handler of one type is broken).
   */
  fail(status: number, times: number, onlyType?: string): void;
  /** Holds every request without answering while on. */
  hang(on: boolean): void;
  /** Requests held by {@link hang}, their `webhook-id`s. */
  held(): string[];
  close(): Promise<void>;
}

/** A fresh Standard Webhooks secret. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export async function startWebhookReceiver(secret = newWebhookSecret()): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const byOrder = new Map<string, ReceivedEvent[]>();
  const seen = new Set<string>();
  const bodies: string[] = [];
  const attempts: Attempt[] = [];
  let failing: { status: number; times: number; onlyType?: string } = { status: 0, times: 0 };
  let hanging = false;
  const held: (() => void)[] = [];
  const heldIds: string[] = [];

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (text += d));
      req.on('end', () => resolve(text));
      req.on('error', reject);
    });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const id = req.headers['webhook-id'] as string | undefined;
      if (hanging) {
        heldIds.push(id ?? '');
        held.push(() => res.destroy());
        return;
      }
      const typed = failing.onlyType === undefined || body.includes(`"type":"${failing.onlyType}"`);
      if (failing.times > 0 && typed) {
        failing.times -= 1;
        attempts.push({ id, status: failing.status, verified: false });
        res.writeHead(failing.status).end();
        return;
      }
      let event: ReceivedEvent;
      try {
        event = verifier.verify(body, req.headers as Record<string, string>) as ReceivedEvent;
      } catch {
        attempts.push({ id, status: 401, verified: false });
        res.writeHead(401).end();
        return;
      }
      attempts.push({ id, status: 204, verified: true });
      bodies.push(body);
      if (id !== undefined && !seen.has(id)) {
        seen.add(id);
        const list = byOrder.get(event.data.orderId) ?? [];
        list.push({ ...event, id });
        byOrder.set(event.data.orderId, list);
      }
      res.writeHead(204).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/order-events`,
    secret,
    events: (orderId) => [...(byOrder.get(orderId) ?? [])],
    bodies: () => [...bodies],
    attempts: () => [...attempts],
    fail(status, times, onlyType) {
      failing = { status, times, ...(onlyType !== undefined ? { onlyType } : {}) };
    },
    held: () => [...heldIds],
    hang(on) {
      hanging = on;
      if (!on) for (const release of held.splice(0)) release();
    },
    async close() {
      for (const release of held.splice(0)) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
