/**
 * The hostile order system of the `order-event-endpoints` surface: a receiver on loopback that
 * plays its answers (order-event-answers.ts) byte by byte: a plain endpoint (each `webhook-id`
 * gets its script of answers, one per attempt), a TLS one whose certificate nobody trusts, one
 * that resets the handshake, the plain one addressed as https, and a port that refuses. Also what
 * both parts of the surface share: the secret, the events, the leak check.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import type { Logger } from '@temporalio/common';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { orderEventId, type OrderEvent } from '../../src/order-events/contract/event';
import { makeCertificates } from '../temporal-server/certificates';
import { defect, type Tally } from './campaign';
import type { Answer } from './order-event-answers';

/** The endpoint's signing secret: never in a failure or a log line. */
export const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
/** Stands for what an event's body says: never in a failure or a log line either. */
const SENTINEL = 'SENTINEL-body-Ada-Lovelace-1815';

export const leaky = (text: string): boolean =>
  text.includes(SECRET) || text.includes(SECRET.slice(6)) || text.includes(SENTINEL);

/** A log that counts a leak in any line it is given. */
export function leakLog(t: Tally): Logger {
  const line = (message: string, meta?: Record<string, unknown>) => {
    const text = `${message} ${JSON.stringify(meta ?? {})}`;
    if (leaky(text)) defect(t, 'leaks', String(meta?.eventId), `a log line: ${text.slice(0, 200)}`);
  };
  const log: Logger['log'] = (_level, message, meta) => line(message, meta);
  return { log, trace: line, debug: line, info: line, warn: line, error: line };
}

/** Event `sequence` of `orderId`, the sentinel in its body. */
export function eventOf(orderId: string, sequence: number): OrderEvent {
  const data = {
    orderId,
    truth: 'CONFIRMED' as const,
    phase: 'CONFIRMED',
    sequence,
    reason: SENTINEL,
  };
  const at = new Date().toISOString();
  return { id: orderEventId(orderId, sequence), type: 'order.confirmed', timestamp: at, data };
}

/** `fn` in an activity's context (the SDK's own, for activities run outside a worker). */
export const inActivity = <R>(env: MockActivityEnvironment, fn: () => Promise<R>) =>
  env.run(fn) as Promise<R>;

/** One POST as the receiver saw it. */
export interface Attempt {
  readonly at: number;
  readonly answer: Answer;
}

export interface HostileReceiver {
  /** The endpoint of `answer`: the plain one, or one of the TLS refusals. */
  urlFor(answer: Answer): string;
  /** The answers to `webhookId`'s attempts, in turn; the last one again after them. */
  script(webhookId: string, answers: readonly Answer[]): void;
  attempts(webhookId: string): readonly Attempt[];
  /** Ids of requests that came to another path than the endpoint's: a redirect followed. */
  strays(): ReadonlySet<string>;
  /** How much of a huge answer to `webhookId` went out before the client stopped reading. */
  written(webhookId: string): number;
  close(): Promise<void>;
}

const PATH = '/order-events';

export async function startHostileReceiver(): Promise<HostileReceiver> {
  const scripts = new Map<string, readonly Answer[]>();
  const seen = new Map<string, Attempt[]>();
  const strays = new Set<string>();
  const written = new Map<string, number>();
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s)).on('error', () => undefined);
  };
  const plain = createServer((s) => {
    track(s);
    readRequests(s, (path, id) => {
      if (path !== PATH) strays.add(id);
      const list = seen.get(id) ?? [];
      const script = scripts.get(id) ?? [{ k: 'final', status: 404, head: '' } as Answer];
      const answer = script[Math.min(list.length, script.length - 1)]!;
      seen.set(id, [...list, { at: Date.now(), answer }]);
      play(s, answer, base, (bytes) => written.set(id, bytes));
    });
  });
  await listen(plain);
  const base = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  const refusals = await refusingEndpoints(base, track);
  return {
    urlFor: (a) =>
      a.k === 'tls' || a.k === 'refused'
        ? refusals.urls[a.k === 'tls' ? a.how : 'refused']
        : `${base}${PATH}`,
    script: (id, answers) => scripts.set(id, answers),
    attempts: (id) => seen.get(id) ?? [],
    strays: () => strays,
    written: (id) => written.get(id) ?? 0,
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all(
        [plain, ...refusals.servers].map((srv) => new Promise((r) => srv.close(r))),
      );
    },
  };
}

/**
 * Endpoints no POST gets through to: TLS with a certificate nobody trusts, TLS reset at the
 * handshake, the plain endpoint at `base` addressed as https, a port that refuses.
 */
async function refusingEndpoints(base: string, track: (s: Socket) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-untrusted-'));
  const certs = await makeCertificates(dir, { caName: 'untrusted fuzz CA' });
  const key = readFileSync(certs.serverKey);
  const cert = readFileSync(certs.serverCert);
  rmSync(dir, { recursive: true, force: true });
  // Reached only if the client trusted it: a 204 would then be a delivery to an impostor.
  const untrusted = createTlsServer({ key, cert }, (s) => {
    track(s);
    s.once('data', () => s.end('HTTP/1.1 204 No Content\r\n\r\n'));
  });
  const resets = createServer((s) => {
    track(s);
    s.once('data', () => s.resetAndDestroy());
  });
  const closed = createServer();
  const [untrustedPort, resetPort, closedPort] = await Promise.all(
    [untrusted, resets, closed].map(listen),
  );
  await new Promise((r) => closed.close(r));
  const urls = {
    untrusted: `https://127.0.0.1:${untrustedPort}${PATH}`,
    reset: `https://127.0.0.1:${resetPort}${PATH}`,
    plain: `${base.replace('http:', 'https:')}${PATH}`,
    refused: `http://127.0.0.1:${closedPort}${PATH}`,
  };
  return { urls, servers: [untrusted, resets] as Server[] };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** Calls `onRequest` for each whole request on the connection (kept alive between them). */
function readRequests(s: Socket, onRequest: (path: string, webhookId: string) => void): void {
  let buf = Buffer.alloc(0);
  s.on('data', (chunk: Buffer) => {
    // A TLS ClientHello to the plain endpoint: it answers in plain HTTP, as a misconfigured one.
    if (buf.length === 0 && chunk[0] === 0x16)
      return void s.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      buf = buf.subarray(end + 4 + length);
      const id = /\r\nwebhook-id: *([^\r]*)/i.exec(head)?.[1] ?? '';
      onRequest(head.split(' ')[1] ?? '', id);
    }
  });
}

/** Writes `answer` on the connection, byte by byte where it trickles. */
function play(s: Socket, a: Answer, base: string, sent: (bytes: number) => void): void {
  const line = (st: number) => `HTTP/1.1 ${st} Fuzz\r\n`;
  const cut = (reset: boolean) => (reset ? s.resetAndDestroy() : s.end());
  switch (a.k) {
    case 'final': {
      const interim =
        a.interim === undefined
          ? ''
          : a.interim === 101
            ? 'HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: fuzz\r\n\r\n'
            : `${line(a.interim)}\r\n`;
      s.write(`${interim}${line(a.status)}${a.head}content-length: 0\r\n\r\n`);
      if (/connection: close|timeout=0/.test(a.head)) s.end();
      return;
    }
    case 'redirect': {
      const to = a.to.replace('{here}', base).replace('{self}', `${base}${PATH}`);
      return void s.write(`${line(a.status)}location: ${to}\r\ncontent-length: 0\r\n\r\n`);
    }
    case 'huge':
      return pump(s, a, sent);
    case 'trickle': {
      const text = a.head
        ? `${line(a.status)}content-length: 0\r\n\r\n`
        : `${line(a.status)}content-length: 1000\r\n\r\n`;
      if (!a.head) s.write(text);
      let i = 0;
      const timer = setInterval(() => s.write(a.head ? (text[i++] ?? '') : 'x'), 1_000);
      return void s.on('close', () => clearInterval(timer));
    }
    case 'hang':
      return;
    case 'cut':
      if (a.at === 'interim') s.write('HTTP/1.1 100 Continue\r\n\r\n');
      if (a.at === 'head') s.write(`${line(a.status)}content-`);
      if (a.at === 'body')
        s.write(`${line(a.status)}content-length: 1000\r\n\r\n${'x'.repeat(10)}`);
      return void setTimeout(() => cut(a.reset), 20);
    case 'garbage':
      return void s.end(a.bytes, 'latin1');
    case 'tls':
    case 'refused':
      return;
  }
}

/** A huge answer, as fast as the client takes it, until it is all out or the client left. */
function pump(
  s: Socket,
  a: { status: number; mb: number; chunked: boolean },
  counted: (bytes: number) => void,
): void {
  const size = a.mb * 1024 * 1024;
  const frame = a.chunked ? 'transfer-encoding: chunked' : `content-length: ${size}`;
  s.write(`HTTP/1.1 ${a.status} Fuzz\r\n${frame}\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const framed = a.chunked
    ? Buffer.concat([Buffer.from('10000\r\n'), chunk, Buffer.from('\r\n')])
    : chunk;
  let sent = 0;
  const more = () => {
    while (!s.destroyed && sent < size) {
      sent += chunk.length;
      counted(sent);
      if (!s.write(framed)) return void s.once('drain', more);
    }
    if (!s.destroyed && a.chunked) s.write('0\r\n\r\n');
  };
  more();
}
