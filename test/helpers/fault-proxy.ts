/**
 * An HTTP proxy in front of the simulator that answers chosen requests itself: what a real
 * supplier's edge does now and then and the simulator does not (a proxy's HTML page, a 404 from a
 * lagging replica, a 401 during a key rotation, a 408, a slow answer). Everything else is
 * forwarded untouched, so the simulator still does all the work. Listens on port 0.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultRule {
  /** e.g. `GET` */
  readonly method: string;
  /** The path after `/api/v1`, e.g. `/retrieve` or `/cancel`. */
  readonly path: string;
  /** Only requests for this booking (`booking_id` in the query). @default any */
  readonly bookingId?: number;
  /** Only requests whose query has these values (e.g. `{ option_id }`). @default any */
  readonly query?: Readonly<Record<string, string>>;
  /** Only requests whose body contains this text (e.g. an order id). @default any */
  readonly bodyIncludes?: string;
  /** How many matching requests this rule answers; then it is spent. @default Infinity */
  readonly times?: number;
  /** Skip this many matching requests before answering. @default 0 */
  readonly after?: number;
  /** The answer; without `status`, the request is forwarded after `delayMs`. */
  readonly status?: number;
  readonly body?: string;
  /** @default 'application/json' */
  readonly contentType?: string;
  /** Wait this long before answering (or forwarding). @default 0 */
  readonly delayMs?: number;
  /** Called once the answer has been sent (e.g. to pause the proxy right after it). */
  readonly onAnswered?: () => void;
}

export interface FaultProxy {
  /** The base URL to give the hotel API client (without `/api/v1`). */
  readonly url: string;
  /**
   * Stops accepting connections and closes the open ones: the next request is refused
   * (ECONNREFUSED), proof that it never reached the supplier.
   */
  pause(): void;
  /** Accepts connections again, on the same port. */
  resume(): Promise<void>;
  /** Adds a rule (rules are tried in the order added); returns how to read its use. */
  add(rule: FaultRule): { answered(): number; remove(): void };
  close(): Promise<void>;
}

interface LiveRule extends FaultRule {
  seen: number;
  used: number;
}

export async function startFaultProxy(targetBaseUrl: string): Promise<FaultProxy> {
  const target = new URL(targetBaseUrl);
  let rules: LiveRule[] = [];

  function pick(req: IncomingMessage, body: string): { rule: LiveRule } | undefined {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    for (const rule of rules) {
      if (rule.method !== req.method || rule.path !== path) continue;
      if (
        rule.bookingId !== undefined &&
        url.searchParams.get('booking_id') !== String(rule.bookingId)
      )
        continue;
      if (rule.query && Object.entries(rule.query).some(([k, v]) => url.searchParams.get(k) !== v))
        continue;
      if (rule.bodyIncludes !== undefined && !body.includes(rule.bodyIncludes)) continue;
      rule.seen += 1;
      if (rule.seen <= (rule.after ?? 0)) continue;
      if (rule.used >= (rule.times ?? Infinity)) continue;
      rule.used += 1;
      return { rule };
    }
    return undefined;
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks), res));
  });

  function handle(req: IncomingMessage, body: Buffer, res: ServerResponse) {
    const hit = pick(req, body.toString('utf8'));
    const forward = () => {
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    };
    const answer = () => {
      if (!hit || hit.rule.status === undefined) return forward();
      const text = hit.rule.body ?? '';
      res.writeHead(hit.rule.status, {
        'content-type': hit.rule.contentType ?? 'application/json',
        'content-length': Buffer.byteLength(text),
        date: new Date().toUTCString(),
      });
      res.end(text);
    };
    if (hit?.rule.onAnswered) res.once('finish', hit.rule.onAnswered);
    const delay = hit?.rule.delayMs ?? 0;
    if (delay > 0) setTimeout(answer, delay).unref();
    else answer();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pause() {
      server.close();
      server.closeAllConnections();
    },
    async resume() {
      if (server.listening) return;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    add(rule) {
      const live: LiveRule = { ...rule, seen: 0, used: 0 };
      rules.push(live);
      return {
        answered: () => live.used,
        remove: () => {
          rules = rules.filter((r) => r !== live);
        },
      };
    },
    async close() {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
