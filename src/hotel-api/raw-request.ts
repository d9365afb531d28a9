/**
 * One signed request outside the typed endpoints, for probes that must see what the client hides
 * on purpose (redirects, every header, an error's body, another query encoding or credentials);
 * signed and encoded as the client does, so a probe differs from a real call only where it means
 * to. Not for bookings: it neither validates nor classifies. Redirects are never followed.
 */
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import type { HotelApiConfig } from './client';
import { apiBase, encodeQuery } from './url';
import { lenientJson } from './exchange';
import type { QueryPairs } from './endpoint';
import type { HttpMethod, ResponseHeaders } from './errors';
import type { Credentials } from './signing';
import { sign } from './signing';

export interface RawRequest {
  readonly method: HttpMethod;
  /** Path relative to `/api/v1`, e.g. `/properties/content/`. */
  readonly path: string;
  /** Pairs encoded as the client encodes them, or a query string sent exactly as given. */
  readonly query?: QueryPairs | string;
  /**
   * Sign with these credentials instead of the configured ones; `null` sends no `authorization`.
   * @default the configured key and secret
   */
  readonly credentials?: Credentials | null;
  /** The clock the signature is made with, epoch ms. @default Date.now() */
  readonly signAtMs?: number;
  /** @default config.timeouts.readMs */
  readonly timeoutMs?: number;
}

export interface RawAnswer {
  readonly statusCode: number;
  /** Lower-case names, as undici reports them. */
  readonly headers: ResponseHeaders;
  readonly text: string;
  /** The body as JSON, `undefined` when empty or not JSON. */
  readonly json: unknown;
  /** From sending to the end of the body (monotonic clock), ms. */
  readonly durationMs: number;
  /** The timestamp of the signature, epoch ms (whole seconds), when one was sent. */
  readonly signedAtMs?: number;
}

/** Largest body kept; probes read small answers, anything longer is cut. */
const MAX_TEXT_CHARS = 2 * 1024 * 1024;

/** Sends one request and reads the whole answer; rejects only when no answer arrives. */
export async function rawRequest(
  config: HotelApiConfig,
  req: RawRequest,
  dispatcher?: Dispatcher,
): Promise<RawAnswer> {
  const { origin, prefix } = apiBase(config.baseUrl);
  const query = typeof req.query === 'object' ? encodeQuery(req.query) : (req.query ?? '');
  const headers: Record<string, string> = { accept: 'application/json' };
  const credentials = req.credentials === undefined ? config : req.credentials;
  const signAtMs = req.signAtMs ?? Date.now();
  if (credentials !== null) headers.authorization = sign(credentials, signAtMs);
  const started = performance.now();
  const res = await request(`${origin}${prefix}${req.path}${query === '' ? '' : `?${query}`}`, {
    method: req.method,
    headers,
    signal: AbortSignal.timeout(req.timeoutMs ?? config.timeouts.readMs),
    ...(dispatcher === undefined ? {} : { dispatcher }),
  });
  const text = (await res.body.text()).slice(0, MAX_TEXT_CHARS);
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    text,
    json: lenientJson(text),
    durationMs: performance.now() - started,
    ...(credentials === null ? {} : { signedAtMs: Math.floor(signAtMs / 1000) * 1000 }),
  };
}
