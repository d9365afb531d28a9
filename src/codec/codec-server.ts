/**
 * The codec server: lets the Temporal Web UI and CLI show (and send) payloads that the worker and
 * client encrypt, without the Temporal server ever holding a key.
 *
 * Protocol (the one the Web UI and `temporal --codec-endpoint` speak): `POST /encode` and
 * `POST /decode`, also under a namespace segment (`/{namespace}/decode`, for the CLI's endpoint
 * templating), body `{"payloads":[{"metadata":{"encoding":"<base64>"},"data":"<base64>"}]}` (proto3
 * JSON: every bytes field base64), answered in the same shape. `X-Namespace` is accepted (allowed
 * by CORS) and not needed: one set of keys serves every namespace.
 *
 * Every encode/decode needs the token: as `Authorization: Bearer <token>` (the CLI sends it with
 * `--codec-auth 'Bearer <token>'`), or in the path as `/t/<token>/decode`. The Web UI cannot send a
 * static header (its "pass access token" sends the UI user's own login token), so the UI is given
 * the capability URL `http://host:port/t/<token>` as its codec endpoint: a request without the
 * token, in either place, still gets 401.
 *
 * Status codes: 200, 204 (preflight), 400 (bad JSON or shape), 401, 403 (preflight from an origin
 * not allowed), 404, 405, 413 (body over the cap), 422 (a payload that cannot be decrypted: unknown
 * key id, tampered), 500 only for a fault of ours. Bodies are JSON `{ error, message }`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { PayloadCodecError } from './encryption-codec';

/** Request headers a browser may send cross-origin (answered in every allowed preflight). */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, X-Namespace';

export interface CodecServerOptions {
  /** The codec to run payloads through, the same one the worker and client use. */
  readonly codec: PayloadCodec;
  /** The bearer token every encode/decode request must carry. Must not be empty. */
  readonly token: string;
  /**
   * The browser origin(s) allowed to call the server (the Temporal UI, e.g.
   * `http://localhost:8233`). Other origins get no CORS headers, so browsers refuse them.
   * @default [] (no CORS: CLI and server-side callers only)
   */
  readonly corsOrigin?: string | readonly string[];
  /**
   * Largest request body accepted, bytes. Temporal caps a payload at 2 MiB and the UI decodes a
   * few payloads per request; base64 adds a third.
   * @default 8 MiB
   */
  readonly maxBodyBytes?: number;
  /**
   * Where faults of ours (500s) are reported; never called with payload contents.
   * @default console.error
   */
  readonly onError?: (err: unknown) => void;
}

export interface CodecServer {
  /** The underlying server, not yet listening. */
  readonly server: Server;
  /**
   * Starts listening; resolves to the base URL (`http://host:port`) to configure in the UI/CLI.
   * @param port 0 for a free port.
   * @param host @default '127.0.0.1'
   */
  listen(port: number, host?: string): Promise<string>;
  /** Stops accepting connections and closes open ones. Safe to call twice. */
  close(): Promise<void>;
}

/** Standard or URL-safe base64, padding optional: proto3 JSON parsers accept both. */
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

/**
 * proto3 JSON leaves an empty list out: the Temporal CLI sends `{}` for a query or update without
 * arguments, which means no payloads.
 */
const PayloadsBody = z.object({
  payloads: z
    .array(
      z.object({
        metadata: z.record(z.string(), base64).nullish(),
        data: base64.nullish(),
      }),
    )
    .default([]),
});

/**
 * `/encode`, `/decode`, `/{namespace}/encode`, `/{namespace}/decode`, each also under `/t/<token>`
 * (the capability URL the Web UI uses), trailing slash allowed.
 */
const ROUTE = /^\/(?:t\/([^/]+)\/)?(?:[^/]+\/)?(encode|decode)\/?$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

/** The configured token, checked in constant time against a bearer header or a `/t/<token>` path. */
function tokenCheck(token: string) {
  // Compare digests, not tokens: equal lengths for timingSafeEqual, and the token's length leaks
  // nothing either.
  const tokenDigest = sha256(token);
  return (header: string | undefined, pathToken: string | undefined): boolean => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    const presented = match?.[1] ?? (pathToken === undefined ? undefined : safeDecode(pathToken));
    // Hash even when the header is missing so that both paths cost the same.
    const ok = timingSafeEqual(sha256(presented ?? ''), tokenDigest);
    return presented !== undefined && ok;
  };
}

/** The CORS preflight of an allowed origin; any other origin is refused. */
function preflight(res: ServerResponse, allowedOrigin: string | undefined): void {
  if (allowedOrigin === undefined) {
    throw new HttpError(403, 'origin_not_allowed', 'This origin may not call the codec server');
  }
  res.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
    'Access-Control-Max-Age': '600',
  });
  res.end();
}

/** The body's payloads, or a 400 that says what is wrong where. */
function payloadsOf(body: Buffer): Payload[] {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'bad_json', 'The body is not valid JSON');
  }
  const parsed = PayloadsBody.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    throw new HttpError(
      400,
      'bad_request',
      `Expected {"payloads":[{"metadata":{...},"data":"<base64>"}]}: ${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data.payloads.map(fromJson);
}

/** A failed request's answer: its HTTP error, or a 500 that says nothing of the cause. */
function answerFailure(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  onError: (err: unknown) => void,
): void {
  if (err instanceof HttpError) {
    if (err.status === 413) res.setHeader('Connection', 'close');
    sendJson(res, err.status, { error: err.error, message: err.message }, err.headers);
    // A rejected upload may still be streaming in; do not read the rest of it.
    if (err.status === 413) res.once('finish', () => req.destroy());
    return;
  }
  onError(err);
  if (!res.headersSent) {
    sendJson(res, 500, { error: 'internal', message: 'The codec server failed' });
  } else {
    res.destroy();
  }
}

/** `listen` and `close` of a built server. */
function lifecycle(server: Server): Omit<CodecServer, 'server'> {
  let closing: Promise<void> | undefined;
  return {
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const h = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${h}:${address.port}`);
        });
      });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * Builds the codec server (not listening: call `listen`, port 0 in tests).
 *
 * @throws {TypeError} when `token` is empty.
 */
export function buildCodecServer(options: CodecServerOptions): CodecServer {
  const { codec } = options;
  if (options.token === '') throw new TypeError('buildCodecServer: token must not be empty');
  const authorized = tokenCheck(options.token);
  const origins = new Set(
    typeof options.corsOrigin === 'string' ? [options.corsOrigin] : (options.corsOrigin ?? []),
  );
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024; // 8 MiB
  const onError = options.onError ?? ((err: unknown) => console.error('[codec-server]', err));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    const allowedOrigin = origin !== undefined && origins.has(origin) ? origin : undefined;
    // Caches must not serve one origin's CORS answer to another.
    res.setHeader('Vary', 'Origin');
    if (allowedOrigin !== undefined) {
      res.setHeader('Access-Control-Allow-Origin', allowedOrigin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (req.method === 'OPTIONS') return preflight(res, allowedOrigin);
    if (path === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new HttpError(405, 'method_not_allowed', 'Use GET', { Allow: 'GET, HEAD' });
      }
      return sendJson(res, 200, { status: 'ok' });
    }
    const routeMatch = ROUTE.exec(path);
    const route = routeMatch?.[2] as 'encode' | 'decode' | undefined;
    if (route === undefined) throw new HttpError(404, 'not_found', 'Use POST /encode or /decode');
    if (req.method !== 'POST') {
      throw new HttpError(405, 'method_not_allowed', 'Use POST', { Allow: 'POST, OPTIONS' });
    }
    if (!authorized(req.headers.authorization, routeMatch?.[1])) {
      throw new HttpError(401, 'unauthorized', 'A valid Authorization: Bearer token is required', {
        'WWW-Authenticate': 'Bearer',
      });
    }
    const payloads = payloadsOf(await readBody(req, maxBodyBytes));
    let result: Payload[];
    try {
      result = route === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    } catch (err) {
      if (err instanceof PayloadCodecError) throw new HttpError(422, err.code, err.message);
      throw err;
    }
    // Decoded payloads are guest data: no cache anywhere may keep them.
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, { payloads: result.map(toJson) });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => answerFailure(req, res, err, onError));
  });
  // Slow-loris guard: a request must arrive whole within these limits.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return { server, ...lifecycle(server) };
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * The body, at most `max` bytes. Read with listeners, not `for await`: leaving an async iterator
 * early destroys the request and with it the socket, and the client would get a reset instead of
 * the 413.
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const tooLarge = () =>
    new HttpError(413, 'body_too_large', `The body is larger than ${max} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        done();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onAbort = () => {
      done();
      reject(new HttpError(400, 'incomplete_body', 'The request body did not arrive whole'));
    };
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAbort);
    req.once('close', onAbort);
  });
}

// Object.fromEntries defines own properties, so a `__proto__` metadata key stays a plain key.
function fromJson(p: { metadata?: Record<string, string> | null; data?: string | null }): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
    ),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

function toJson(p: Payload): { metadata: Record<string, string>; data: string } {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, base64Of(v)]),
    ),
    data: base64Of(p.data ?? new Uint8Array(0)),
  };
}

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
