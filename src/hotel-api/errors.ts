/**
 * The ONE place that classifies supplier-call failures.
 *
 * Every failure of a call through {@link HotelApiClient} becomes a {@link HotelApiError} whose
 * `code` is stable and whose `retryable` / `ambiguous` flags come from {@link CLASSIFICATION_TABLE}
 * (docs/hard-rules.md renders the same table). Activities convert it once to an `ApplicationFailure` with
 * `type = code`, so workflows decide on the code alone; that is why the flags are fixed per code
 * rather than varying per instance (the only exception, CLOCK_SKEW's retryability, depends on a
 * deployment setting, not on the circumstances of the failure).
 *
 * Hard rule 1 (at most one supplier booking per order) rests on `ambiguous`: a non-idempotent
 * call (POST /booking) may be re-sent only when `ambiguous` is false.
 */

import { redact } from './redaction';

/** The stable failure codes. Add freely, never rename: workflows and dashboards match on them. */
export const HotelApiErrorCode = {
  AUTH_INVALID: 'AUTH_INVALID',
  ACCOUNT_INACTIVE: 'ACCOUNT_INACTIVE',
  VALIDATION: 'VALIDATION',
  INVALID_REQUEST: 'INVALID_REQUEST',
  NOT_FOUND: 'NOT_FOUND',
  RATE_LIMITED: 'RATE_LIMITED',
  SUPPLIER_UNAVAILABLE: 'SUPPLIER_UNAVAILABLE',
  TIMEOUT: 'TIMEOUT',
  CONNECTION_FAILED_BEFORE_SEND: 'CONNECTION_FAILED_BEFORE_SEND',
  CONNECTION_LOST: 'CONNECTION_LOST',
  CONTRACT: 'CONTRACT',
  CLOCK_SKEW: 'CLOCK_SKEW',
  ABORTED: 'ABORTED',
  CLIENT_ERROR: 'CLIENT_ERROR',
} as const;
export type HotelApiErrorCode = (typeof HotelApiErrorCode)[keyof typeof HotelApiErrorCode];

/** One row of {@link CLASSIFICATION_TABLE}. */
export interface ClassificationRow {
  readonly code: HotelApiErrorCode;
  /** What produces this code. */
  readonly trigger: string;
  /**
   * Whether a later attempt may succeed. `'if-clock-correction'`: true when
   * `HotelApiConfig.clockCorrection` is on (the next attempt signs with the supplier's time).
   */
  readonly retryable: boolean | 'if-clock-correction';
  /** Whether the supplier may have processed the request (for POST /booking: may have booked). */
  readonly ambiguous: boolean;
  /** What it means and what to do. */
  readonly meaning: string;
}

/** How far the signed timestamp may be from the supplier's clock before a 401 is blamed on it. */
export const CLOCK_SKEW_THRESHOLD_MS = 4 * 60_000;

/**
 * The single source of truth for failure classification; `HotelApiError` takes its flags from
 * here and docs/hard-rules.md renders it.
 */
export const CLASSIFICATION_TABLE: readonly ClassificationRow[] = [
  {
    code: 'AUTH_INVALID',
    trigger: '401, the signed timestamp within 4 minutes of the supplier clock (or no Date header)',
    retryable: false,
    ambiguous: false,
    meaning: 'Key or secret rejected; the request was refused. Fix the credentials (fail fast).',
  },
  {
    code: 'ACCOUNT_INACTIVE',
    trigger: '403',
    retryable: false,
    ambiguous: false,
    meaning: 'The company account is not active; the request was refused. Contact the supplier.',
  },
  {
    code: 'VALIDATION',
    trigger: '422 (detail as a string or as a list of {type, loc, msg})',
    retryable: false,
    ambiguous: false,
    meaning:
      'The supplier rejected the parameters (see fieldErrors); nothing was processed. A bug or a contract drift.',
  },
  {
    code: 'INVALID_REQUEST',
    trigger: 'our own validation before sending',
    retryable: false,
    ambiguous: false,
    meaning: 'Bad input caught before anything was sent (see fieldErrors).',
  },
  {
    code: 'NOT_FOUND',
    trigger: '404 from any endpoint except POST /booking',
    retryable: false,
    ambiguous: false,
    meaning: 'The property or booking does not exist (or the property is inactive).',
  },
  {
    code: 'RATE_LIMITED',
    trigger: '429',
    retryable: true,
    ambiguous: false,
    meaning:
      'Refused before processing (RFC 6585); retry after retryAfterMs when given (Retry-After, at most 5 min).',
  },
  {
    code: 'SUPPLIER_UNAVAILABLE',
    trigger: '5xx',
    retryable: true,
    ambiguous: true,
    meaning:
      'The supplier failed while handling the request; a POST /booking may have committed. Carries retryAfterMs when given (at most 5 min).',
  },
  {
    code: 'TIMEOUT',
    trigger: 'our deadline expired after the request was written (headers or body late)',
    retryable: true,
    ambiguous: true,
    meaning: 'No complete answer in time; the supplier may still process the request.',
  },
  {
    code: 'CONNECTION_FAILED_BEFORE_SEND',
    trigger:
      'any failure or deadline before the request was handed to a connected socket, whatever its code: connection refused, DNS failure, connect timeout, TLS handshake failure, queued for a free connection',
    retryable: true,
    ambiguous: false,
    meaning:
      'Proof that the request never reached the supplier; safe to send again, even a booking.',
  },
  {
    code: 'CONNECTION_LOST',
    trigger:
      'any socket failure after the request was handed to the socket, whatever its code (ECONNRESET, EPIPE, EHOSTUNREACH, ETIMEDOUT, UND_ERR_SOCKET, ...), or a response body cut short',
    retryable: true,
    ambiguous: true,
    meaning:
      'The connection broke after the request left us; the supplier may have processed it. A reused keep-alive socket closed by the peer just before our write looks the same and is classified here too.',
  },
  {
    code: 'CONTRACT',
    trigger:
      'unexpected status, wrong or missing JSON content type, unparsable JSON, schema mismatch, body over the size cap, malformed HTTP',
    retryable: false,
    ambiguous: true,
    meaning:
      'The supplier answered something we cannot trust; retrying will not fix it. The request may have been processed.',
  },
  {
    code: 'CLOCK_SKEW',
    trigger: '401 while the signed timestamp was more than 4 minutes from the supplier Date header',
    retryable: 'if-clock-correction',
    ambiguous: false,
    meaning:
      'Our clock drifts (see clockOffsetMs); the request was refused. With clock correction on, the next attempt signs with the supplier time.',
  },
  {
    code: 'ABORTED',
    trigger: "the caller's AbortSignal fired",
    retryable: false,
    ambiguous: true,
    meaning:
      'Cancelled by the caller; treated as ambiguous because the request may already have been written (see requestSent).',
  },
  {
    code: 'CLIENT_ERROR',
    trigger: 'any other 4xx, including a 404 from POST /booking',
    retryable: false,
    ambiguous: true,
    meaning:
      'An undocumented refusal; ambiguous because only 401/403/422 (and 429) prove a booking was not made.',
  },
];

const TABLE_BY_CODE: ReadonlyMap<HotelApiErrorCode, ClassificationRow> = new Map(
  CLASSIFICATION_TABLE.map((row) => [row.code, row]),
);

/** One field-level problem, from our own validation or from a supplier 422. */
export interface FieldError {
  /** Dotted path, e.g. `room_detail.0.lead_first_name` or `query.property_id.0`; `''` when unknown. */
  readonly field: string;
  readonly message: string;
}

/** A schema issue kept on CONTRACT errors (path and message only: never the offending value). */
export interface ContractIssue {
  readonly path: readonly PropertyKey[];
  readonly code: string;
  readonly message: string;
}

/** Response headers with lower-case names, as undici reports them. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** HTTP methods the supplier API uses. */
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** Everything needed to build a {@link HotelApiError}. */
export interface HotelApiErrorInit {
  readonly code: HotelApiErrorCode;
  readonly message: string;
  /** Path template of the endpoint, e.g. `/booking`, `/properties/content/{hotel_id}`. */
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly statusCode?: number;
  readonly retryAfterMs?: number;
  readonly requestId?: string;
  readonly fieldErrors?: readonly FieldError[];
  readonly issues?: readonly ContractIssue[];
  readonly clockOffsetMs?: number;
  readonly requestSent?: boolean;
  /** Only matters for CLOCK_SKEW, whose retryability depends on it. @default false */
  readonly clockCorrection?: boolean;
  readonly cause?: unknown;
}

/**
 * A failed supplier call. `retryable` and `ambiguous` come from {@link CLASSIFICATION_TABLE}.
 *
 * `retryable` says a later attempt may succeed; for a non-idempotent call (POST /booking) check
 * `ambiguous` first: an ambiguous booking failure must be reconciled, never re-sent.
 */
export class HotelApiError extends Error {
  readonly code: HotelApiErrorCode;
  readonly statusCode?: number;
  readonly retryable: boolean;
  readonly ambiguous: boolean;
  /** How long the supplier asked us to wait (from `Retry-After`), in ms. */
  readonly retryAfterMs?: number;
  /** The supplier's request id (`x-request-id` and similar headers) when it sent one. */
  readonly requestId?: string;
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly fieldErrors?: readonly FieldError[];
  /** Schema issues, for CONTRACT errors caused by a response that does not match its schema. */
  readonly issues?: readonly ContractIssue[];
  /** Supplier clock minus ours, in ms, as measured on this response. */
  readonly clockOffsetMs?: number;
  /**
   * Whether the request had been handed to a connected socket when the failure happened
   * (`undefined` when a response was received, which implies it was).
   */
  readonly requestSent?: boolean;

  constructor(init: HotelApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'HotelApiError';
    const row = TABLE_BY_CODE.get(init.code);
    if (row === undefined) throw new TypeError(`unknown HotelApiError code ${String(init.code)}`);
    this.code = init.code;
    this.retryable =
      row.retryable === 'if-clock-correction' ? init.clockCorrection === true : row.retryable;
    this.ambiguous = row.ambiguous;
    this.endpoint = init.endpoint;
    this.method = init.method;
    // Optional fields are only set when present, so JSON and inspect output stay small.
    if (init.statusCode !== undefined) this.statusCode = init.statusCode;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.fieldErrors !== undefined) this.fieldErrors = init.fieldErrors;
    if (init.issues !== undefined) this.issues = init.issues;
    if (init.clockOffsetMs !== undefined) this.clockOffsetMs = init.clockOffsetMs;
    if (init.requestSent !== undefined) this.requestSent = init.requestSent;
  }

  /** A plain, secret-free view for logs and Temporal failure details. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      endpoint: this.endpoint,
      method: this.method,
      statusCode: this.statusCode,
      retryable: this.retryable,
      ambiguous: this.ambiguous,
      retryAfterMs: this.retryAfterMs,
      requestId: this.requestId,
      fieldErrors: this.fieldErrors,
      issues: this.issues,
      clockOffsetMs: this.clockOffsetMs,
      requestSent: this.requestSent,
    };
  }
}

/**
 * Type guard. Also recognises a HotelApiError from another copy of this module (two installs in
 * one process), by its name and a known code.
 */
export function isHotelApiError(err: unknown): err is HotelApiError {
  if (err instanceof HotelApiError) return true;
  return (
    err instanceof Error &&
    err.name === 'HotelApiError' &&
    TABLE_BY_CODE.has((err as { code?: unknown }).code as HotelApiErrorCode)
  );
}

/**
 * {@link CLASSIFICATION_TABLE} as a Markdown table, for docs/hard-rules.md (one source of truth).
 */
export function classificationTableMarkdown(): string {
  const flag = (v: boolean | string): string =>
    v === true ? 'yes' : v === false ? 'no' : 'yes, with clock correction on';
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const lines = [
    '| code | trigger | retryable | ambiguous | meaning |',
    '|---|---|---|---|---|',
    ...CLASSIFICATION_TABLE.map(
      (r) =>
        `| \`${r.code}\` | ${cell(r.trigger)} | ${flag(r.retryable)} | ${flag(r.ambiguous)} | ${cell(r.meaning)} |`,
    ),
  ];
  return lines.join('\n');
}

// --- redaction --------------------------------------------------------------------------------

export { personalData, redact } from './redaction';

// --- responses --------------------------------------------------------------------------------

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

function header(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The supplier's request id, from the first of the usual headers that is present. */
export function requestIdFrom(headers: ResponseHeaders): string | undefined {
  for (const name of ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid']) {
    const v = header(headers, name);
    if (v !== undefined && v !== '') return v.slice(0, 200);
  }
  return undefined;
}

/**
 * The longest wait a `Retry-After` is taken for. A supplier (or a proxy) asking for days would
 * hold a booking's second send, and the `cancel` that waits behind it, for days: after this long
 * the call is simply made again, and a supplier still refusing says so again.
 */
export const MAX_RETRY_AFTER_MS = 5 * 60_000; // 5 min

/**
 * Parses `Retry-After` (delta seconds or an HTTP date) into ms, at most
 * {@link MAX_RETRY_AFTER_MS}. An HTTP date is measured against the response's own `Date` when
 * present, so a skewed local clock does not distort it.
 */
export function parseRetryAfter(headers: ResponseHeaders, nowMs = Date.now()): number | undefined {
  const raw = header(headers, 'retry-after')?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  const dateHeader = header(headers, 'date');
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

/** A human summary of an error body: `detail` (string), else `message`, else nothing. */
function detailText(
  body: unknown,
  secrets: readonly string[],
  personal: readonly string[],
): string | undefined {
  if (!isRecord(body)) return undefined;
  for (const key of ['detail', 'message']) {
    const v = body[key];
    if (typeof v === 'string' && v !== '') return clip(redact(v, secrets, personal));
  }
  return undefined;
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

/** `field: message; field: message`, for error messages. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => (e.field === '' ? e.message : `${e.field}: ${e.message}`)).join('; ');
}

/**
 * Classifies an answer whose status is not a success of its endpoint. Success statuses with a
 * bad body are CONTRACT errors built by the client with {@link contractError}.
 */
export function classifyResponse(ctx: ResponseContext): HotelApiError {
  const { statusCode: status, endpoint, method } = ctx;
  const secrets = ctx.secrets ?? [];
  const base = {
    endpoint,
    method,
    statusCode: status,
    requestId: requestIdFrom(ctx.headers),
    clockCorrection: ctx.clockCorrection ?? false,
  };
  const where = `${method} ${endpoint}`;
  const personal = ctx.personal ?? [];
  const detail = detailText(ctx.body, secrets, personal);
  const suffix = detail === undefined ? '' : `: ${detail}`;

  if (status === 401) {
    const skew = ctx.signedSkewMs;
    if (skew !== undefined && Math.abs(skew) > CLOCK_SKEW_THRESHOLD_MS) {
      return new HotelApiError({
        ...base,
        code: 'CLOCK_SKEW',
        clockOffsetMs: ctx.clockOffsetMs ?? skew,
        message: `${where} answered 401 while our signature was ${Math.round(skew / 1000)} s off the supplier clock (tolerance 300 s)${suffix}`,
      });
    }
    return new HotelApiError({
      ...base,
      code: 'AUTH_INVALID',
      clockOffsetMs: ctx.clockOffsetMs,
      message: `${where} answered 401 (credentials rejected)${suffix}`,
    });
  }
  if (status === 403) {
    return new HotelApiError({
      ...base,
      code: 'ACCOUNT_INACTIVE',
      message: `${where} answered 403 (company account not active)${suffix}`,
    });
  }
  if (status === 422) {
    const fieldErrors = parseValidationDetail(ctx.body, secrets, personal);
    const list = fieldErrors.length > 0 ? `: ${formatFieldErrors(fieldErrors)}` : '';
    return new HotelApiError({
      ...base,
      code: 'VALIDATION',
      fieldErrors,
      message: `${where} answered 422 (request rejected)${list}`,
    });
  }
  if (status === 404 && !NOT_FOUND_EXCLUDED.has(where)) {
    return new HotelApiError({
      ...base,
      code: 'NOT_FOUND',
      message: `${where} answered 404 (not found)${suffix}`,
    });
  }
  if (status === 429) {
    return new HotelApiError({
      ...base,
      code: 'RATE_LIMITED',
      retryAfterMs: parseRetryAfter(ctx.headers, ctx.nowMs),
      message: `${where} answered 429 (rate limited)${suffix}`,
    });
  }
  if (status >= 500 && status <= 599) {
    return new HotelApiError({
      ...base,
      code: 'SUPPLIER_UNAVAILABLE',
      retryAfterMs: parseRetryAfter(ctx.headers, ctx.nowMs),
      message: `${where} answered ${status} (supplier failure; the request may have been processed)${suffix}`,
    });
  }
  if (status >= 400 && status <= 499) {
    return new HotelApiError({
      ...base,
      code: 'CLIENT_ERROR',
      message: `${where} answered ${status} (undocumented refusal)${suffix}`,
    });
  }
  return new HotelApiError({
    ...base,
    code: 'CONTRACT',
    message: `${where} answered unexpected status ${status}${suffix}`,
  });
}

/** A CONTRACT error for a success status whose body cannot be trusted. */
export function contractError(init: {
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly statusCode?: number;
  readonly headers?: ResponseHeaders;
  readonly reason: string;
  readonly issues?: readonly ContractIssue[];
  readonly cause?: unknown;
}): HotelApiError {
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

// --- network failures -------------------------------------------------------------------------

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
   * Whether undici had handed the request to a connected socket (its `onRequestStart` /
   * `onConnect` hook, called right before the synchronous write). Before it, nothing can have
   * reached the supplier.
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
  for (let depth = 0; depth < 4 && isRecordLike(cur); depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function isRecordLike(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

/**
 * Classifies a failure without a (complete) HTTP answer.
 *
 * The decisive fact is whether the request had been written. undici calls the handler's
 * `onRequestStart` immediately before writing on a connected socket, so a failure before it is
 * proof that nothing was sent (connect errors, DNS, our deadline expiring while connecting or
 * queued for a free connection). After it, a reset is ambiguous: we cannot tell a keep-alive
 * socket the peer closed just before our write (undici checks idle sockets before reuse, which
 * narrows but does not close that race) from a supplier that received the request and died. We
 * choose ambiguous, the safe side for POST /booking.
 */
export function classifyNetworkError(err: unknown, ctx: NetworkErrorContext): HotelApiError {
  const { endpoint, method, requestSent } = ctx;
  const where = `${method} ${endpoint}`;
  const code = errorCodeOf(err);
  const base = { endpoint, method, requestSent, cause: ctx.cause ?? err };
  const what = code === undefined ? describe(err) : `${code}: ${describe(err)}`;

  if (ctx.reason === 'abort') {
    return new HotelApiError({
      ...base,
      code: 'ABORTED',
      message: `${where} aborted by the caller ${requestSent ? 'after' : 'before'} the request was written`,
    });
  }
  if (ctx.reason === 'timeout' || (code !== undefined && TIMEOUT_ERROR_CODES.has(code))) {
    const after = ctx.timeoutMs === undefined ? '' : ` after ${ctx.timeoutMs} ms`;
    if (!requestSent) {
      return new HotelApiError({
        ...base,
        code: 'CONNECTION_FAILED_BEFORE_SEND',
        message: `${where} timed out${after} before the request was written (connecting or waiting for a free connection)`,
      });
    }
    return new HotelApiError({
      ...base,
      code: 'TIMEOUT',
      message: `${where} timed out${after} waiting for the answer; the supplier may still process it`,
    });
  }
  // Decided by what happened to the request, never by the code: an EHOSTUNREACH or ECONNREFUSED
  // reported on a socket that already carried the request proves nothing (rule 1).
  if (!requestSent) {
    return new HotelApiError({
      ...base,
      code: 'CONNECTION_FAILED_BEFORE_SEND',
      message: `${where} failed before the request was sent (${what})`,
    });
  }
  if (code !== undefined && (GARBLED_RESPONSE_CODES.has(code) || code.startsWith('HPE_'))) {
    return new HotelApiError({
      ...base,
      code: 'CONTRACT',
      message: `${where} received a malformed HTTP answer (${what})`,
    });
  }
  return new HotelApiError({
    ...base,
    code: 'CONNECTION_LOST',
    message: `${where} lost the connection after the request was written (${what}); the supplier may have processed it`,
  });
}

function describe(err: unknown): string {
  if (err instanceof Error) return clip(redact(err.message || err.name));
  return clip(redact(String(err)));
}
