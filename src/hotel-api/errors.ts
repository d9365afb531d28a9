/**
 * The ONE place that classifies supplier-call failures (docs/hard-rules.md, "Failure
 * classification"): every failure of a call through the client becomes a {@link HotelApiError}
 * whose stable `code` (classify.ts picks it) fixes its `retryable` / `ambiguous` flags (only
 * CLOCK_SKEW's retryability depends on a deployment setting), so workflows decide on the code
 * alone. Hard rule 1 rests on `ambiguous`: POST /booking may be re-sent only when it is false.
 */

interface Classification {
  /** What produces this code. */
  readonly trigger: string;
  /** `'if-clock-correction'`: when `HotelApiConfig.clockCorrection` is on (signs with its time). */
  readonly retryable: boolean | 'if-clock-correction';
  /** Whether the supplier may have processed the request (for POST /booking: may have booked). */
  readonly ambiguous: boolean;
  /** What it means and what to do. */
  readonly meaning: string;
}

/**
 * The stable failure codes and their classification, the single source of truth: `HotelApiError`
 * takes its flags from here, docs/hard-rules.md renders it. Add codes freely, never rename:
 * workflows and dashboards match on them.
 */
const CLASSIFICATION = {
  AUTH_INVALID: {
    trigger: '401, the signed timestamp within 4 minutes of the supplier clock (or no Date header)',
    retryable: false,
    ambiguous: false,
    meaning: 'Key or secret rejected; the request was refused. Fix the credentials (fail fast).',
  },
  ACCOUNT_INACTIVE: {
    trigger: '403',
    retryable: false,
    ambiguous: false,
    meaning: 'The company account is not active; the request was refused. Contact the supplier.',
  },
  VALIDATION: {
    trigger: '422 (detail as a string or as a list of {type, loc, msg})',
    retryable: false,
    ambiguous: false,
    meaning:
      'The supplier rejected the parameters (see fieldErrors); nothing was processed. A bug or a contract drift.',
  },
  INVALID_REQUEST: {
    trigger: 'our own validation before sending',
    retryable: false,
    ambiguous: false,
    meaning: 'Bad input caught before anything was sent (see fieldErrors).',
  },
  NOT_FOUND: {
    trigger: '404 from any endpoint except POST /booking',
    retryable: false,
    ambiguous: false,
    meaning: 'The property or booking does not exist (or the property is inactive).',
  },
  RATE_LIMITED: {
    trigger: '429',
    retryable: true,
    ambiguous: false,
    meaning:
      'Refused before processing (RFC 6585); retry after retryAfterMs when given (Retry-After, at most 5 min).',
  },
  SUPPLIER_UNAVAILABLE: {
    trigger: '5xx',
    retryable: true,
    ambiguous: true,
    meaning:
      'The supplier failed while handling the request; a POST /booking may have committed. Carries retryAfterMs when given (at most 5 min).',
  },
  TIMEOUT: {
    trigger: 'our deadline expired after the request was written (headers or body late)',
    retryable: true,
    ambiguous: true,
    meaning: 'No complete answer in time; the supplier may still process the request.',
  },
  CONNECTION_FAILED_BEFORE_SEND: {
    trigger:
      'any failure or deadline before the request was handed to a connected socket, whatever its code: connection refused, DNS failure, connect timeout, TLS handshake failure, queued for a free connection',
    retryable: true,
    ambiguous: false,
    meaning:
      'Proof that the request never reached the supplier; safe to send again, even a booking.',
  },
  CONNECTION_LOST: {
    trigger:
      'any socket failure after the request was handed to the socket, whatever its code (ECONNRESET, EPIPE, EHOSTUNREACH, ETIMEDOUT, UND_ERR_SOCKET, ...), or a response body cut short',
    retryable: true,
    ambiguous: true,
    meaning:
      'The connection broke after the request left us; the supplier may have processed it. A reused keep-alive socket closed by the peer just before our write looks the same and is classified here too.',
  },
  CONTRACT: {
    trigger:
      'unexpected status, wrong or missing JSON content type, unparsable JSON, schema mismatch, body over the size cap, malformed HTTP',
    retryable: false,
    ambiguous: true,
    meaning:
      'The supplier answered something we cannot trust; retrying will not fix it. The request may have been processed.',
  },
  CLOCK_SKEW: {
    trigger: '401 while the signed timestamp was more than 4 minutes from the supplier Date header',
    retryable: 'if-clock-correction',
    ambiguous: false,
    meaning:
      'Our clock drifts (see clockOffsetMs); the request was refused. With clock correction on, the next attempt signs with the supplier time.',
  },
  ABORTED: {
    trigger: "the caller's AbortSignal fired",
    retryable: false,
    ambiguous: true,
    meaning:
      'Cancelled by the caller; treated as ambiguous because the request may already have been written (see requestSent).',
  },
  CLIENT_ERROR: {
    trigger: 'any other 4xx, including a 404 from POST /booking',
    retryable: false,
    ambiguous: true,
    meaning:
      'An undocumented refusal; ambiguous because only 401/403/422 (and 429) prove a booking was not made.',
  },
} satisfies Record<string, Classification>;

export type HotelApiErrorCode = keyof typeof CLASSIFICATION;
export const HotelApiErrorCode = Object.fromEntries(
  Object.keys(CLASSIFICATION).map((code) => [code, code]),
) as { readonly [C in HotelApiErrorCode]: C };

export interface ClassificationRow extends Classification {
  readonly code: HotelApiErrorCode;
}

/** {@link CLASSIFICATION} as rows, in its order. */
export const CLASSIFICATION_TABLE: readonly ClassificationRow[] = Object.entries(
  CLASSIFICATION,
).map(([code, row]) => ({ code: code as HotelApiErrorCode, ...row }));

const TABLE_BY_CODE: ReadonlyMap<HotelApiErrorCode, ClassificationRow> = new Map(
  CLASSIFICATION_TABLE.map((row) => [row.code, row]),
);

/**
 * The longest wait a `Retry-After` is taken for: a supplier (or proxy) asking for days would hold a
 * booking's second send, and the `cancel` behind it, for days. After this the call is made again.
 */
export const MAX_RETRY_AFTER_MS = 5 * 60_000; // 5 min

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

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** Everything needed to build a {@link HotelApiError}. */
export interface HotelApiErrorInit extends Omit<
  HotelApiError,
  'name' | 'stack' | 'retryable' | 'ambiguous' | 'toJSON'
> {
  /** Only matters for CLOCK_SKEW, whose retryability depends on it. @default false */
  readonly clockCorrection?: boolean;
}

/**
 * A failed supplier call. `retryable` says a later attempt may succeed; for a non-idempotent call
 * (POST /booking) check `ambiguous` first: an ambiguous booking failure must be reconciled, never
 * re-sent.
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
  /** Path template of the endpoint, e.g. `/booking`, `/properties/content/{hotel_id}`. */
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly fieldErrors?: readonly FieldError[];
  /** Schema issues, for CONTRACT errors caused by a response that does not match its schema. */
  readonly issues?: readonly ContractIssue[];
  /** Supplier clock minus ours, in ms, as measured on this response. */
  readonly clockOffsetMs?: number;
  /** Whether the request had reached a connected socket; `undefined` when an answer arrived. */
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
    // Every field is an own property from the class declarations; absent facts stay undefined.
    this.statusCode = init.statusCode;
    this.retryAfterMs = init.retryAfterMs;
    this.requestId = init.requestId;
    this.fieldErrors = init.fieldErrors;
    this.issues = init.issues;
    this.clockOffsetMs = init.clockOffsetMs;
    this.requestSent = init.requestSent;
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

/** `field: message; field: message`, for error messages. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => (e.field === '' ? e.message : `${e.field}: ${e.message}`)).join('; ');
}

/** {@link CLASSIFICATION_TABLE} as a Markdown table, for docs/hard-rules.md. */
export function classificationTableMarkdown(): string {
  const flag = (v: boolean | string): string =>
    v === true ? 'yes' : v === false ? 'no' : 'yes, with clock correction on';
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  return [
    '| code | trigger | retryable | ambiguous | meaning |',
    '|---|---|---|---|---|',
    ...CLASSIFICATION_TABLE.map(
      (r) =>
        `| \`${r.code}\` | ${cell(r.trigger)} | ${flag(r.retryable)} | ${flag(r.ambiguous)} | ${cell(r.meaning)} |`,
    ),
  ].join('\n');
}
