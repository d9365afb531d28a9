/**
 * The supplier HTTP client: one undici pool per base URL, a fresh signature per request, a single
 * attempt per call (Temporal owns retries), every failure classified by errors.ts.
 *
 * Temporal-free on purpose: activities, the CLI, tests and benchmarks all use it.
 */
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import type { AvailabilityParams, AvailabilityResponse } from './availability';
import { prepareAvailability } from './availability';
import type { CreateBookingParams, CreateBookingResponse } from './booking';
import { prepareCreateBooking } from './booking';
import type { CancelParams, CancelResult } from './cancel';
import { prepareCancel } from './cancel';
import type {
  PropertyDetail,
  PropertyDetailParams,
  PropertyListParams,
  PropertyListResponse,
} from './content';
import { preparePropertyDetail, preparePropertyList } from './content';
import type { PreparedRequest, QueryPairs, TimeoutClass } from './endpoint';
import type { ContractIssue, HttpMethod, ResponseHeaders } from './errors';
import {
  classifyNetworkError,
  classifyResponse,
  contractError,
  HotelApiError,
  isHotelApiError,
} from './errors';
import { personalData, redact } from './redaction';
import type { PriceCheckParams, PriceCheckResponse } from './price-check';
import { preparePriceCheck } from './price-check';
import type { RetrieveParams, RetrieveResponse } from './retrieve';
import { prepareRetrieve } from './retrieve';
import { sign } from './signing';
import type { StaticReferenceListParams, StaticReferenceListResponse } from './static-content';
import { prepareStaticReferenceList } from './static-content';

/** The version prefix every path lives under (seed: "All paths are relative to {base_url}/api/v1"). */
export const API_PREFIX = '/api/v1';

/** Default cap on a response body; bigger answers are CONTRACT errors. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024; // 10 MiB

/** One finished call, reported to {@link HotelApiClientOptions.onCall} (the metrics layer). */
export interface CallEvent {
  /** Path template, e.g. `/booking` or `/properties/content/{hotel_id}`. */
  readonly endpoint: string;
  readonly method: HttpMethod;
  /** The HTTP status, when an answer arrived. */
  readonly statusCode?: number;
  /** Wall time of the call (monotonic clock), in ms. */
  readonly durationMs: number;
  /** The {@link HotelApiError} code when the call failed; absent on success. */
  readonly code?: string;
}

export interface HotelApiClientOptions {
  /**
   * The clock used to sign requests and to measure the supplier's clock offset (tests inject a
   * skewed one). Durations use the monotonic clock regardless.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * The undici dispatcher to send through. It must follow undici's handler protocol (all undici
   * dispatchers do): the before/after-send classification relies on its `onRequestStart`.
   * A given dispatcher is not closed by {@link HotelApiClient.close}.
   * @default a keep-alive `Pool` for `config.baseUrl` with `config.maxConnections` connections
   */
  readonly dispatcher?: Dispatcher;
  /**
   * Called once per call that reached the HTTP layer (not for INVALID_REQUEST, which sends
   * nothing). Exceptions it throws are swallowed: metrics must never break a booking.
   * @default no hook
   */
  readonly onCall?: (event: CallEvent) => void;
  /**
   * Largest response body accepted, in bytes.
   * @default DEFAULT_MAX_RESPONSE_BYTES (10 MiB)
   */
  readonly maxResponseBytes?: number;
}

/** Per-call options, the optional last argument of every method. */
export interface CallOptions {
  /** Aborts the call; it then fails with ABORTED. @default none */
  readonly signal?: AbortSignal;
  /**
   * Overall deadline of this call (queueing, connecting, sending, reading), in ms.
   * @default config.timeouts.bookingMs for POST /booking, searchMs for availability, readMs otherwise
   */
  readonly timeoutMs?: number;
}

interface RawResponse {
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  readonly body: Buffer;
  /** Supplier `Date` minus the timestamp we signed with, in ms, when the answer had a `Date`. */
  readonly signedSkewMs?: number;
}

/**
 * The origin and the path prefix every endpoint path is appended to. The base URL is the
 * supplier's address; one that already ends in /api/v1 is tolerated.
 */
export function apiBase(baseUrl: string): { readonly origin: string; readonly prefix: string } {
  const url = new URL(baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  return {
    origin: url.origin,
    prefix: basePath.endsWith(API_PREFIX) ? basePath : `${basePath}${API_PREFIX}`,
  };
}

function encodeComponent(s: string): string {
  const e = encodeURIComponent(s);
  return e.includes('%2C') ? e.replaceAll('%2C', ',') : e;
}

/** `a=1&a=2`: arrays as repeated keys (FastAPI's convention); commas stay literal (`2-5,7`). */
export function encodeQuery(pairs: QueryPairs): string {
  let out = '';
  for (const [k, v] of pairs) {
    out += `${out === '' ? '' : '&'}${encodeComponent(k)}=${encodeComponent(v)}`;
  }
  return out;
}

function encodable(v: string): boolean {
  try {
    encodeURIComponent(v);
    return true;
  } catch {
    return false;
  }
}

/**
 * The request's query string; INVALID_REQUEST, nothing sent, when a value is not well-formed
 * Unicode (an unpaired surrogate): no URL can carry it.
 */
function queryOf(req: Pick<PreparedRequest<unknown>, 'query' | 'endpoint' | 'method'>): string {
  if (req.query.length === 0) return '';
  try {
    return `?${encodeQuery(req.query)}`;
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    const field = req.query.find(([, v]) => !encodable(v))?.[0] ?? '';
    const problem = 'not well-formed Unicode (an unpaired surrogate)';
    throw new HotelApiError({
      code: 'INVALID_REQUEST',
      endpoint: req.endpoint,
      method: req.method,
      fieldErrors: [{ field, message: problem }],
      requestSent: false,
      message: `${req.method} ${req.endpoint}: invalid request, nothing sent: ${field}: ${problem}`,
    });
  }
}

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The first value of a response header (undici gives repeated headers as arrays). */
export function firstHeader(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Where and how the client reaches the supplier (the worker's config hands it over). */
export interface HotelApiConfig {
  readonly baseUrl: string;
  readonly key: string;
  readonly secret: string;
  readonly timeouts: {
    /** `POST /booking`, ms. */
    readonly bookingMs: number;
    /** Every other (read) call, ms. */
    readonly readMs: number;
    /** `GET /properties/availability`, ms. */
    readonly searchMs: number;
  };
  /** Sign with the supplier's clock (from its `Date` header) when ours drifts. */
  readonly clockCorrection: boolean;
  readonly maxConnections: number;
}

/**
 * The supplier API client. One instance per base URL; share it (the pool is its point).
 *
 * Every method validates its input before sending (INVALID_REQUEST names the field; nothing is
 * sent), signs at send time, makes exactly one attempt, and either resolves with the parsed,
 * schema-checked answer or rejects with a {@link HotelApiError}.
 */
export class HotelApiClient {
  readonly #config: HotelApiConfig;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #now: () => number;
  readonly #onCall: ((event: CallEvent) => void) | undefined;
  readonly #maxResponseBytes: number;
  readonly #secrets: readonly string[];
  #clockOffsetMs = 0;
  #closed = false;

  constructor(config: HotelApiConfig, options: HotelApiClientOptions = {}) {
    this.#config = config;
    ({ origin: this.#origin, prefix: this.#prefix } = apiBase(config.baseUrl));
    this.#now = options.now ?? Date.now;
    this.#onCall = options.onCall;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    // The key too: alone in a supplier's echo it is half of what signs a request.
    this.#secrets = [config.secret, config.key];
    if (options.dispatcher !== undefined) {
      this.#dispatcher = options.dispatcher;
      this.#ownsDispatcher = false;
    } else {
      // pipelining stays 1 (undici's default): with pipelining, one reset would make every
      // queued request on that socket ambiguous.
      this.#dispatcher = new Pool(this.#origin, {
        connections: config.maxConnections,
        pipelining: 1,
      });
      this.#ownsDispatcher = true;
    }
  }

  /**
   * Supplier clock minus ours, in ms, from the `Date` header of the latest answer (0 until one
   * arrives). Used to sign when `config.clockCorrection` is on.
   */
  get clockOffsetMs(): number {
    return this.#clockOffsetMs;
  }

  /** `GET /properties/availability` (timeout: `searchMs`). */
  async availability(q: AvailabilityParams, opts?: CallOptions): Promise<AvailabilityResponse> {
    return this.#call(prepareAvailability(q), opts);
  }

  /** `GET /properties/content/`: one page (200 items) of a country's active properties. */
  async listProperties(q: PropertyListParams, opts?: CallOptions): Promise<PropertyListResponse> {
    return this.#call(preparePropertyList(q), opts);
  }

  /** `GET /properties/content/{hotel_id}`: NOT_FOUND when missing or inactive. */
  async getProperty(q: PropertyDetailParams, opts?: CallOptions): Promise<PropertyDetail> {
    return this.#call(preparePropertyDetail(q), opts);
  }

  /** `GET /static_content_reference_list`. */
  async staticReferenceList(
    q: StaticReferenceListParams,
    opts?: CallOptions,
  ): Promise<StaticReferenceListResponse> {
    return this.#call(prepareStaticReferenceList(q), opts);
  }

  /** `GET /price-check`: `booking_id` of the answer is the `optionId` of {@link createBooking}. */
  async priceCheck(q: PriceCheckParams, opts?: CallOptions): Promise<PriceCheckResponse> {
    return this.#call(preparePriceCheck(q), opts);
  }

  /**
   * `POST /booking` (timeout: `bookingMs`). Not idempotent: on failure, re-send only when the
   * error is not `ambiguous`.
   */
  async createBooking(q: CreateBookingParams, opts?: CallOptions): Promise<CreateBookingResponse> {
    return this.#call(prepareCreateBooking(q), opts);
  }

  /** `GET /retrieve`: NOT_FOUND when the booking does not exist (either 404 shape). */
  async retrieveBooking(q: RetrieveParams, opts?: CallOptions): Promise<RetrieveResponse> {
    return this.#call(prepareRetrieve(q), opts);
  }

  /** `DELETE /cancel`: 204 → `CANCELLED`; 202 → `PENDING` (not a cancellation yet). */
  async cancelBooking(q: CancelParams, opts?: CallOptions): Promise<CancelResult> {
    return this.#call(prepareCancel(q), opts);
  }

  /** Closes the pool this client created (waits for calls in flight); idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #timeoutFor(kind: TimeoutClass): number {
    const t = this.#config.timeouts;
    return kind === 'booking' ? t.bookingMs : kind === 'search' ? t.searchMs : t.readMs;
  }

  async #call<T>(req: PreparedRequest<T>, opts: CallOptions | undefined): Promise<T> {
    const timeoutMs = opts?.timeoutMs ?? this.#timeoutFor(req.timeout);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new HotelApiError({
        code: 'INVALID_REQUEST',
        endpoint: req.endpoint,
        method: req.method,
        fieldErrors: [{ field: 'timeoutMs', message: 'must be a positive number' }],
        requestSent: false,
        message: `${req.method} ${req.endpoint}: invalid request, nothing sent: timeoutMs: must be a positive number`,
      });
    }
    const started = performance.now();
    let statusCode: number | undefined;
    try {
      const raw = await this.#exchange(req, timeoutMs, opts?.signal);
      statusCode = raw.statusCode;
      const value = this.#decode(req, raw);
      this.#emit({
        endpoint: req.endpoint,
        method: req.method,
        statusCode,
        durationMs: performance.now() - started,
      });
      return value;
    } catch (err) {
      const error = isHotelApiError(err)
        ? err
        : classifyNetworkError(err, {
            endpoint: req.endpoint,
            method: req.method,
            requestSent: true,
          });
      this.#emit({
        endpoint: req.endpoint,
        method: req.method,
        statusCode: error.statusCode ?? statusCode,
        durationMs: performance.now() - started,
        code: error.code,
      });
      throw error;
    }
  }

  #emit(event: CallEvent): void {
    if (this.#onCall === undefined) return;
    try {
      this.#onCall(event);
    } catch {
      // A broken metrics hook must not turn a successful booking into a failure.
    }
  }

  /** The clock we sign with: ours, corrected by the supplier's offset when configured. */
  #signingNow(): number {
    return this.#now() + (this.#config.clockCorrection ? this.#clockOffsetMs : 0);
  }

  /**
   * Sends one request and collects the whole answer (capped), or rejects with a classified
   * network error. Resolves for any status; statuses are judged by {@link #decode}.
   */
  #exchange<T>(
    req: PreparedRequest<T>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RawResponse> {
    if (signal?.aborted === true) {
      return Promise.reject(
        classifyNetworkError(new Error('aborted by the caller'), {
          endpoint: req.endpoint,
          method: req.method,
          requestSent: false,
          reason: 'abort',
          cause: signal.reason,
        }),
      );
    }
    const query = queryOf(req);
    // Signed here, per request and per attempt (rule 6). undici serialises headers when the
    // request is created, so this is the latest moment the timestamp can be chosen.
    const signingNow = this.#signingNow();
    const headers: Record<string, string> = {
      authorization: sign(this.#config, signingNow),
      accept: 'application/json',
    };
    let body: Buffer | undefined;
    if (req.body !== undefined) {
      body = Buffer.from(JSON.stringify(req.body), 'utf8');
      headers['content-type'] = 'application/json';
    }
    const exchange = new Exchange(req, timeoutMs, signal, this.#maxResponseBytes, (h) =>
      this.#observeDate(h, Math.floor(signingNow / 1000) * 1000),
    );
    try {
      this.#dispatcher.dispatch(
        {
          origin: this.#origin,
          path: `${this.#prefix}${req.path}${query}`,
          method: req.method,
          headers,
          body,
          // Our own deadline covers the whole call; undici's inactivity timers only back it up.
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        exchange,
      );
    } catch (err) {
      // dispatch throws synchronously for invalid options: nothing was sent.
      exchange.fail(classifyNetworkError(err, { ...exchange.where, requestSent: false }));
    }
    return exchange.promise;
  }

  /**
   * Records the supplier's clock offset from a `Date` header and returns the skew of the
   * timestamp this request was signed with. `Date` has one-second resolution, so the supplier's
   * time is taken mid-second.
   */
  #observeDate(headers: ResponseHeaders, signedAtMs: number): number | undefined {
    const raw = firstHeader(headers, 'date');
    if (raw === undefined) return undefined;
    const supplierMs = Date.parse(raw);
    if (Number.isNaN(supplierMs)) return undefined;
    this.#clockOffsetMs = supplierMs + 500 - this.#now();
    return supplierMs - signedAtMs;
  }

  /** Turns a complete answer into the endpoint's result, or a classified error. */
  #decode<T>(req: PreparedRequest<T>, raw: RawResponse): T {
    const { endpoint, method } = req;
    const { statusCode, headers } = raw;
    const reader = req.responses[statusCode];
    if (reader === undefined) {
      throw classifyResponse({
        endpoint,
        method,
        statusCode,
        headers,
        body: lenientJson(raw),
        signedSkewMs: raw.signedSkewMs,
        clockOffsetMs: this.#clockOffsetMs,
        clockCorrection: this.#config.clockCorrection,
        nowMs: this.#now(),
        secrets: this.#secrets,
        personal: personalData(req.body),
      });
    }
    if ('empty' in reader) return reader.empty;
    const contentType = firstHeader(headers, 'content-type') ?? '';
    if (!JSON_CONTENT_TYPE.test(contentType)) {
      const shown = redact(contentType.slice(0, 80), this.#secrets, personalData(req.body));
      throw contractError({
        endpoint,
        method,
        statusCode,
        headers,
        reason: `the content type is ${contentType === '' ? 'missing' : JSON.stringify(shown)}, not JSON`,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.body.toString('utf8'));
    } catch (err) {
      // Not the parser's error as the cause: V8 quotes the text around a bad token, which may be
      // a guest's name from the answer. Where it failed is enough to find it.
      const at = /at position \d+/.exec(err instanceof Error ? err.message : '')?.[0];
      throw contractError({
        endpoint,
        method,
        statusCode,
        headers,
        reason: `the body is not valid JSON${at === undefined ? '' : ` (${at})`}`,
      });
    }
    const parsed = reader.json.safeParse(json);
    if (!parsed.success) {
      const issues: ContractIssue[] = parsed.error.issues.map((i) => ({
        path: i.path,
        code: i.code,
        message: i.message,
      }));
      const summary = issues
        .slice(0, 5)
        .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
        .join('; ');
      throw contractError({
        endpoint,
        method,
        statusCode,
        headers,
        issues,
        reason: `the body does not match the schema: ${summary}`,
      });
    }
    const wrong = req.verify?.(parsed.data);
    if (wrong !== undefined)
      throw contractError({ endpoint, method, statusCode, headers, reason: `the body ${wrong}` });
    return parsed.data;
  }
}

/**
 * One request in flight: the undici handler, the deadline and the caller's abort, settled once.
 * A class rather than closures so a call allocates one object, not a dozen functions.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly promise: Promise<RawResponse>;
  readonly where: { readonly endpoint: string; readonly method: HttpMethod };
  #resolve!: (r: RawResponse) => void;
  #reject!: (e: HotelApiError) => void;
  #settled = false;
  /** Set by `onRequestStart`: undici writes the request synchronously right after it. */
  #requestSent = false;
  #controller: Dispatcher.DispatchController | undefined;
  #pendingAbort: Error | undefined;
  #statusCode = 0;
  #headers: ResponseHeaders = {};
  #signedSkewMs: number | undefined;
  #chunks: Buffer[] = [];
  #size = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(
    req: { readonly endpoint: string; readonly method: HttpMethod },
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly maxBytes: number,
    readonly observeDate: (headers: ResponseHeaders) => number | undefined,
  ) {
    this.where = { endpoint: req.endpoint, method: req.method };
    this.promise = new Promise<RawResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#timer = setTimeout(Exchange.#onTimeout, timeoutMs, this);
    // `this` is the listener: EventTarget calls its handleEvent.
    signal?.addEventListener('abort', this, { once: true });
  }

  fail(err: HotelApiError): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#cleanup();
    this.#reject(err);
  }

  #cleanup(): void {
    clearTimeout(this.#timer);
    this.signal?.removeEventListener('abort', this);
  }

  /**
   * Stops undici's side: at once when the request is on a socket (the socket is destroyed, so a
   * body is never left half-read), or as soon as it gets one when still queued (undici then never
   * writes it).
   */
  #stop(reason: Error): void {
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.#pendingAbort = reason;
  }

  static #onTimeout(self: Exchange): void {
    const reason = new Error(`deadline of ${self.timeoutMs} ms expired`);
    self.fail(
      classifyNetworkError(reason, {
        ...self.where,
        requestSent: self.#requestSent,
        reason: 'timeout',
        timeoutMs: self.timeoutMs,
      }),
    );
    self.#stop(reason);
  }

  /** The caller's AbortSignal fired. */
  handleEvent(): void {
    const reason = new Error('aborted by the caller');
    this.fail(
      classifyNetworkError(reason, {
        ...this.where,
        requestSent: this.#requestSent,
        reason: 'abort',
        cause: this.signal?.reason,
      }),
    );
    this.#stop(reason);
  }

  #tooLarge(ctrl: Dispatcher.DispatchController, what: string): void {
    const err = contractError({
      ...this.where,
      statusCode: this.#statusCode,
      headers: this.#headers,
      reason: `the body ${what} the ${this.maxBytes}-byte cap`,
    });
    this.fail(err);
    ctrl.abort(err);
  }

  onRequestStart(ctrl: Dispatcher.DispatchController): void {
    this.#controller = ctrl;
    if (this.#settled) {
      // Gave up while it was queued or connecting: abort before undici writes anything.
      ctrl.abort(this.#pendingAbort ?? new Error('call already settled'));
      return;
    }
    this.#requestSent = true;
  }

  onResponseStart(
    ctrl: Dispatcher.DispatchController,
    statusCode: number,
    headers: ResponseHeaders,
  ): void {
    if (this.#settled) return;
    this.#statusCode = statusCode;
    this.#headers = headers;
    this.#signedSkewMs = this.observeDate(headers);
    const declared = Number(firstHeader(headers, 'content-length'));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      this.#tooLarge(ctrl, 'declares more than');
    }
  }

  onResponseData(ctrl: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > this.maxBytes) {
      this.#tooLarge(ctrl, 'exceeds');
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#cleanup();
    this.#resolve({
      statusCode: this.#statusCode,
      headers: this.#headers,
      body:
        this.#chunks.length === 1
          ? (this.#chunks[0] as Buffer)
          : Buffer.concat(this.#chunks, this.#size),
      signedSkewMs: this.#signedSkewMs,
    });
  }

  onResponseError(_ctrl: Dispatcher.DispatchController, err: Error): void {
    this.fail(classifyNetworkError(err, { ...this.where, requestSent: this.#requestSent }));
  }
}

/** Best-effort JSON of an error answer (bodies of 4xx/5xx may be HTML from a proxy). */
function lenientJson(raw: RawResponse): unknown {
  if (raw.body.length === 0) return undefined;
  try {
    return JSON.parse(raw.body.toString('utf8'));
  } catch {
    return undefined;
  }
}
