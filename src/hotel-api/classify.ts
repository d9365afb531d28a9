/** Maps a supplier answer, or a failure without one, to a {@link HotelApiError} (errors.ts). */
import type {
  FieldError,
  HotelApiErrorCode,
  HotelApiErrorInit,
  HttpMethod,
  ResponseHeaders,
} from './errors';
import { formatFieldErrors, HotelApiError, MAX_RETRY_AFTER_MS } from './errors';
import { redact } from './redaction';

/** How far the signed timestamp may be from the supplier's clock before a 401 is blamed on it. */
export const CLOCK_SKEW_THRESHOLD_MS = 4 * 60_000;

/** The codes of a supplier that did not answer usefully: not reached, gone, too slow, down. */
export const SUPPLIER_UNREACHABLE_CODES: ReadonlySet<string> = new Set<HotelApiErrorCode>([
  'CONNECTION_FAILED_BEFORE_SEND',
  'CONNECTION_LOST',
  'TIMEOUT',
  'SUPPLIER_UNAVAILABLE',
]);

/** The documented 404s; a 404 on POST /booking is not one of them and stays ambiguous. */
const NOT_FOUND_EXCLUDED: ReadonlySet<string> = new Set(['POST /booking']);

/** A response whose status the endpoint does not define as success. */
export interface ResponseContext {
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  /** The parsed JSON body, or `undefined` when it was empty or not JSON. */
  readonly body: unknown;
  /**
   * The supplier's `Date` minus the timestamp we signed this request with, in ms; drives the
   * CLOCK_SKEW decision. `undefined` when the response had no usable `Date` header.
   */
  readonly signedSkewMs?: number;
  /** Supplier clock minus ours, reported on CLOCK_SKEW. */
  readonly clockOffsetMs?: number;
  /** @default false */
  readonly clockCorrection?: boolean;
  /** Our clock, for `Retry-After` given as an HTTP date when the response has no `Date`. */
  readonly nowMs?: number;
  /** Strings to scrub from supplier text wherever they appear (the API secret and key). */
  readonly secrets?: readonly string[];
  /** The request's personal data, scrubbed from supplier text as whole words (redaction.ts). */
  readonly personal?: readonly string[];
}

/** The first value of a response header (undici gives repeated headers as arrays). */
export function firstHeader(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The supplier's request id, from the first of the usual headers that is present. */
export function requestIdFrom(headers: ResponseHeaders): string | undefined {
  for (const name of ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid']) {
    const v = firstHeader(headers, name);
    if (v !== undefined && v !== '') return v.slice(0, 200);
  }
  return undefined;
}

/**
 * Parses `Retry-After` (delta seconds or an HTTP date) into ms, at most
 * {@link MAX_RETRY_AFTER_MS}. An HTTP date is measured against the response's own `Date` when
 * present, so a skewed local clock does not distort it.
 */
export function parseRetryAfter(headers: ResponseHeaders, nowMs = Date.now()): number | undefined {
  const raw = firstHeader(headers, 'retry-after')?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  const dateHeader = firstHeader(headers, 'date');
  const serverNow = dateHeader === undefined ? NaN : Date.parse(dateHeader);
  const wait = at - (Number.isNaN(serverNow) ? nowMs : serverNow);
  return Math.min(Math.max(0, wait), MAX_RETRY_AFTER_MS);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MAX_DETAIL_CHARS = 300;

function clip(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

/**
 * Both 422 shapes: `detail` as a string (the schema) or pydantic's list of `{type, loc, msg}`
 * (the sample). The `input` member pydantic adds is dropped on purpose: it may echo the header.
 */
export function parseValidationDetail(
  body: unknown,
  secrets: readonly string[] = [],
  personal: readonly string[] = [],
): FieldError[] {
  if (!isRecord(body)) return [];
  const detail = body.detail;
  const scrub = (text: string) => redact(text, secrets, personal);
  if (typeof detail === 'string') return [{ field: '', message: clip(scrub(detail)) }];
  if (!Array.isArray(detail)) return [];
  const out: FieldError[] = [];
  for (const item of detail) {
    if (!isRecord(item)) continue;
    const loc = Array.isArray(item.loc) ? item.loc.map((p) => String(p)).join('.') : '';
    const msg = typeof item.msg === 'string' ? item.msg : String(item.type ?? 'invalid');
    out.push({ field: scrub(loc), message: clip(scrub(msg)) });
  }
  return out;
}

/**
 * Classifies an answer whose status is not a success of its endpoint. Success statuses with a
 * bad body are CONTRACT errors built by the client with {@link contractError}.
 */
export function classifyResponse(ctx: ResponseContext): HotelApiError {
  const { statusCode: status, endpoint, method, headers, body, clockOffsetMs } = ctx;
  const secrets = ctx.secrets ?? [];
  const personal = ctx.personal ?? [];
  const where = `${method} ${endpoint}`;
  // A human summary of the body: `detail` (string), else `message`, else nothing.
  const text = isRecord(body)
    ? [body.detail, body.message].find((v) => typeof v === 'string' && v !== '')
    : undefined;
  const suffix = typeof text === 'string' ? `: ${clip(redact(text, secrets, personal))}` : '';
  const error = (code: HotelApiErrorCode, answered: string, more?: Partial<HotelApiErrorInit>) =>
    new HotelApiError({
      endpoint,
      method,
      statusCode: status,
      requestId: requestIdFrom(headers),
      clockCorrection: ctx.clockCorrection ?? false,
      code,
      ...more,
      message: `${where} answered ${answered}`,
    });

  if (status === 401) {
    const skew = ctx.signedSkewMs;
    if (skew !== undefined && Math.abs(skew) > CLOCK_SKEW_THRESHOLD_MS) {
      const off = `${Math.round(skew / 1000)} s off the supplier clock (tolerance 300 s)`;
      return error('CLOCK_SKEW', `401 while our signature was ${off}${suffix}`, {
        clockOffsetMs: clockOffsetMs ?? skew,
      });
    }
    return error('AUTH_INVALID', `401 (credentials rejected)${suffix}`, { clockOffsetMs });
  }
  if (status === 403) return error('ACCOUNT_INACTIVE', `403 (company account not active)${suffix}`);
  if (status === 422) {
    const fieldErrors = parseValidationDetail(body, secrets, personal);
    const list = fieldErrors.length > 0 ? `: ${formatFieldErrors(fieldErrors)}` : '';
    return error('VALIDATION', `422 (request rejected)${list}`, { fieldErrors });
  }
  if (status === 404 && !NOT_FOUND_EXCLUDED.has(where)) {
    return error('NOT_FOUND', `404 (not found)${suffix}`);
  }
  const retryAfterMs = parseRetryAfter(headers, ctx.nowMs);
  if (status === 429) return error('RATE_LIMITED', `429 (rate limited)${suffix}`, { retryAfterMs });
  if (status >= 500 && status <= 599) {
    const failure = 'supplier failure; the request may have been processed';
    return error('SUPPLIER_UNAVAILABLE', `${status} (${failure})${suffix}`, { retryAfterMs });
  }
  if (status >= 400 && status <= 499) {
    return error('CLIENT_ERROR', `${status} (undocumented refusal)${suffix}`);
  }
  return error('CONTRACT', `unexpected status ${status}${suffix}`);
}

/** A CONTRACT error for a success status whose body cannot be trusted. */
export function contractError(
  init: Pick<HotelApiErrorInit, 'endpoint' | 'method' | 'statusCode' | 'issues' | 'cause'> & {
    readonly headers?: ResponseHeaders;
    readonly reason: string;
  },
): HotelApiError {
  return new HotelApiError({
    code: 'CONTRACT',
    endpoint: init.endpoint,
    method: init.method,
    statusCode: init.statusCode,
    requestId: init.headers === undefined ? undefined : requestIdFrom(init.headers),
    issues: init.issues,
    cause: init.cause,
    message: `${init.method} ${init.endpoint}${init.statusCode === undefined ? '' : ` answered ${init.statusCode} but`} ${init.reason}`,
  });
}

/** undici codes meaning its own headers/body inactivity timer fired (after the write). */
const TIMEOUT_ERROR_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The answer arrived but was not valid HTTP, or broke a limit: the supplier answered garbage. */
const GARBLED_RESPONSE_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'UND_ERR_HEADERS_OVERFLOW',
  'UND_ERR_NOT_SUPPORTED',
]);

/** What the client knew when a network-level failure happened. */
export interface NetworkErrorContext {
  readonly endpoint: string;
  readonly method: HttpMethod;
  /**
   * Whether undici had handed the request to a connected socket (its `onRequestStart` hook, called
   * right before the synchronous write). Before it, nothing can have reached the supplier.
   */
  readonly requestSent: boolean;
  /** Why we gave up, when it was our doing rather than the network's. */
  readonly reason?: 'timeout' | 'abort';
  /** The deadline that fired, for the message. */
  readonly timeoutMs?: number;
  readonly cause?: unknown;
}

/** The `code` of an error or of its cause chain (undici sometimes wraps the socket error). */
export function errorCodeOf(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 4 && typeof cur === 'object' && cur !== null; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Classifies a failure without a (complete) HTTP answer. The decisive fact is whether the request
 * had been written: a failure before undici's `onRequestStart` proves nothing was sent. After it,
 * a reset is ambiguous: a keep-alive socket the peer closed just before our write (undici checks
 * idle sockets before reuse, which narrows but does not close that race) looks the same as a
 * supplier that received the request and died. We choose ambiguous, the safe side for POST /booking.
 */
export function classifyNetworkError(err: unknown, ctx: NetworkErrorContext): HotelApiError {
  const { endpoint, method, requestSent } = ctx;
  const code = errorCodeOf(err);
  const said = clip(redact(err instanceof Error ? err.message || err.name : String(err)));
  const what = code === undefined ? said : `${code}: ${said}`;
  const error = (c: HotelApiErrorCode, message: string) =>
    new HotelApiError({
      endpoint,
      method,
      requestSent,
      cause: ctx.cause ?? err,
      code: c,
      message: `${method} ${endpoint} ${message}`,
    });

  if (ctx.reason === 'abort') {
    const when = requestSent ? 'after' : 'before';
    return error('ABORTED', `aborted by the caller ${when} the request was written`);
  }
  if (ctx.reason === 'timeout' || (code !== undefined && TIMEOUT_ERROR_CODES.has(code))) {
    const after = ctx.timeoutMs === undefined ? '' : ` after ${ctx.timeoutMs} ms`;
    return requestSent
      ? error(
          'TIMEOUT',
          `timed out${after} waiting for the answer; the supplier may still process it`,
        )
      : error(
          'CONNECTION_FAILED_BEFORE_SEND',
          `timed out${after} before the request was written (connecting or waiting for a free connection)`,
        );
  }
  // Decided by what happened to the request, never by the code: an EHOSTUNREACH or ECONNREFUSED
  // reported on a socket that already carried the request proves nothing (rule 1).
  if (!requestSent) {
    return error('CONNECTION_FAILED_BEFORE_SEND', `failed before the request was sent (${what})`);
  }
  if (code !== undefined && (GARBLED_RESPONSE_CODES.has(code) || code.startsWith('HPE_'))) {
    return error('CONTRACT', `received a malformed HTTP answer (${what})`);
  }
  const lost = 'lost the connection after the request was written';
  return error('CONNECTION_LOST', `${lost} (${what}); the supplier may have processed it`);
}
