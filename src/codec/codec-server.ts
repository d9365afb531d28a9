/**
 * The codec server: lets the Temporal Web UI and CLI show (and send) payloads that the worker and
 * client encrypt, without the Temporal server ever holding a key. Protocol and token: see
 * docs/payload-encryption.md. The Web UI cannot send a static header (its "pass access token"
 * sends the UI user's own login token), hence the capability URL `/t/<token>`; `X-Namespace` is
 * accepted and not needed: one set of keys serves every namespace.
 *
 * Status codes: 200, 204 (preflight), 400 (bad JSON or shape), 401, 403 (preflight from an origin
 * not allowed), 404, 405, 413 (body over the cap), 422 (a payload that cannot be decrypted: unknown
 * key id, tampered), 500 only for a fault of ours. Bodies are JSON `{ error, message }`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { closeServer } from '../observability/http-server';
import {
  answerFailure,
  HttpError,
  payloadsOf,
  preflight,
  readBody,
  sendJson,
  tokenCheck,
  toJson,
} from './codec-http';
import { PayloadCodecError } from './encryption-codec';

export { CORS_ALLOWED_HEADERS } from './codec-http';

export interface CodecServerOptions {
  /** The codec to run payloads through, the same one the worker and client use. */
  readonly codec: PayloadCodec;
  /** The bearer token every encode/decode request must carry. Must not be empty. */
  readonly token: string;
  /**
   * The browser origins allowed to call the server (the Temporal UI, `http://localhost:8233`);
   * others get no CORS headers, so browsers refuse them. @default [] (CLI and servers only)
   */
  readonly corsOrigin?: string | readonly string[];
  /**
   * Largest request body accepted, bytes. Temporal caps a payload at 2 MiB and the UI decodes a
   * few payloads per request; base64 adds a third. @default 8 MiB
   */
  readonly maxBodyBytes?: number;
  /** Where our faults (500s) are reported, never with payload contents. @default console.error */
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

/**
 * `/encode`, `/decode`, `/{namespace}/encode`, `/{namespace}/decode`, each also under `/t/<token>`
 * (the capability URL the Web UI uses), trailing slash allowed.
 */
const ROUTE = /^\/(?:t\/([^/]+)\/)?(?:[^/]+\/)?(encode|decode)\/?$/;

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
      return (closing ??= closeServer(server));
    },
  };
}

/**
 * Builds the codec server (not listening: call `listen`, port 0 in tests).
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
