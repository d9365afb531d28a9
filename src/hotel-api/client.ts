/**
 * The supplier HTTP client: one undici pool per base URL, a fresh signature per request, a single
 * attempt per call (Temporal owns retries), every failure classified (classify.ts). Temporal-free
 * on purpose: activities, the CLI, tests and benchmarks all use it.
 */
import { Pool, type Dispatcher } from 'undici';
import {
  prepareAvailability,
  type AvailabilityParams,
  type AvailabilityResponse,
} from './availability';
import {
  prepareCreateBooking,
  type CreateBookingParams,
  type CreateBookingResponse,
} from './booking';
import { prepareCancel, type CancelParams, type CancelResult } from './cancel';
import { classifyNetworkError, firstHeader } from './classify';
import {
  preparePropertyDetail,
  preparePropertyList,
  type PropertyDetail,
  type PropertyDetailParams,
  type PropertyListParams,
  type PropertyListResponse,
} from './content';
import type { PreparedRequest, TimeoutClass } from './endpoint';
import { isHotelApiError, type HttpMethod, type ResponseHeaders } from './errors';
import { Exchange, readAnswer, type RawResponse } from './exchange';
import { preparePriceCheck, type PriceCheckParams, type PriceCheckResponse } from './price-check';
import { prepareRetrieve, type RetrieveParams, type RetrieveResponse } from './retrieve';
import { sign } from './signing';
import {
  prepareStaticReferenceList,
  type StaticReferenceListParams,
  type StaticReferenceListResponse,
} from './static-content';
import { apiBase, queryOf } from './url';
import { invalidRequest } from './validation';

export { firstHeader } from './classify';
export { API_PREFIX, apiBase, encodeQuery } from './url';

/** Default cap on a response body; bigger answers are CONTRACT errors. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024; // 10 MiB

/** One finished call, reported to {@link HotelApiClientOptions.onCall} (the metrics layer). */
export interface CallEvent {
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly statusCode?: number;
  /** Wall time of the call (monotonic clock), in ms. */
  readonly durationMs: number;
  /** The {@link HotelApiError} code when the call failed; absent on success. */
  readonly code?: string;
}

export interface HotelApiClientOptions {
  /** The clock to sign with and measure the supplier's offset by. @default Date.now */
  readonly now?: () => number;
  /**
   * The undici dispatcher to send through; the before/after-send classification relies on its
   * `onRequestStart` (every undici dispatcher has it). Not closed by {@link HotelApiClient.close}.
   * @default a keep-alive `Pool` for `config.baseUrl` with `config.maxConnections` connections
   */
  readonly dispatcher?: Dispatcher;
  /**
   * Called once per call that reached the HTTP layer. Exceptions it throws are swallowed: metrics
   * must never break a booking. @default no hook
   */
  readonly onCall?: (event: CallEvent) => void;
  /** Largest response body accepted, in bytes. @default DEFAULT_MAX_RESPONSE_BYTES (10 MiB) */
  readonly maxResponseBytes?: number;
}

/** Per-call options, the optional last argument of every method. */
export interface CallOptions {
  /** Aborts the call; it then fails with ABORTED. @default none */
  readonly signal?: AbortSignal;
  /** Deadline of the whole call (queueing to reading), ms. @default its `config.timeouts` entry */
  readonly timeoutMs?: number;
}

/** Where and how the client reaches the supplier (the worker's config hands it over). */
export interface HotelApiConfig {
  readonly baseUrl: string;
  readonly key: string;
  readonly secret: string;
  /** In ms: `bookingMs` for POST /booking, `searchMs` for availability, `readMs` for the rest. */
  readonly timeouts: Readonly<Record<`${TimeoutClass}Ms`, number>>;
  /** Sign with the supplier's clock (from its `Date` header) when ours drifts. */
  readonly clockCorrection: boolean;
  readonly maxConnections: number;
}

/**
 * The supplier API client; one per base URL, shared (the pool is its point). Every method validates
 * its input (INVALID_REQUEST, nothing sent), signs at send time, makes exactly one attempt, and
 * resolves with the schema-checked answer or rejects with a {@link HotelApiError}.
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
    this.#ownsDispatcher = options.dispatcher === undefined;
    // pipelining stays 1 (undici's default): with pipelining, one reset would make every queued
    // request on that socket ambiguous.
    this.#dispatcher =
      options.dispatcher ??
      new Pool(this.#origin, { connections: config.maxConnections, pipelining: 1 });
  }

  /** Supplier clock minus ours, ms, from the latest answer's `Date` (0 until one); signs with it. */
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

  /** `POST /booking` (timeout: `bookingMs`). Not idempotent: re-send only if not `ambiguous`. */
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

  async #call<T>(req: PreparedRequest<T>, opts: CallOptions | undefined): Promise<T> {
    const { endpoint, method } = req;
    const timeoutMs = opts?.timeoutMs ?? this.#config.timeouts[`${req.timeout}Ms`];
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw invalidRequest(req, [{ field: 'timeoutMs', message: 'must be a positive number' }]);
    }
    const started = performance.now();
    let statusCode: number | undefined;
    try {
      const raw = await this.#exchange(req, timeoutMs, opts?.signal);
      statusCode = raw.statusCode;
      const value = readAnswer(req, raw, {
        clockOffsetMs: this.#clockOffsetMs,
        clockCorrection: this.#config.clockCorrection,
        now: () => this.#now(),
        secrets: this.#secrets,
      });
      this.#emit({ endpoint, method, statusCode, durationMs: performance.now() - started });
      return value;
    } catch (err) {
      const error = isHotelApiError(err)
        ? err
        : classifyNetworkError(err, { endpoint, method, requestSent: true });
      const durationMs = performance.now() - started;
      this.#emit({
        endpoint,
        method,
        statusCode: error.statusCode ?? statusCode,
        durationMs,
        code: error.code,
      });
      throw error;
    }
  }

  #emit(event: CallEvent): void {
    try {
      this.#onCall?.(event);
    } catch {
      // A broken metrics hook must not turn a successful booking into a failure.
    }
  }

  /** Sends one request; resolves with the whole (capped) answer, any status, or rejects classified. */
  #exchange<T>(
    req: PreparedRequest<T>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RawResponse> {
    if (signal?.aborted === true) {
      const { endpoint, method } = req;
      const why = new Error('aborted by the caller');
      const ctx = { endpoint, method, requestSent: false, cause: signal.reason as unknown };
      return Promise.reject(classifyNetworkError(why, { ...ctx, reason: 'abort' }));
    }
    const query = queryOf(req);
    // Signed here, per request and per attempt (rule 6), with our clock corrected by the supplier's
    // offset when configured. undici serialises headers when the request is created, so this is
    // the latest moment the timestamp can be chosen.
    const signingNow = this.#now() + (this.#config.clockCorrection ? this.#clockOffsetMs : 0);
    const headers: Record<string, string> = {
      authorization: sign(this.#config, signingNow),
      accept: 'application/json',
    };
    const body = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body), 'utf8');
    if (body !== undefined) headers['content-type'] = 'application/json';
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

  /** Records the supplier's offset from its `Date` (whole seconds: taken mid-second); returns our skew. */
  #observeDate(headers: ResponseHeaders, signedAtMs: number): number | undefined {
    const raw = firstHeader(headers, 'date');
    if (raw === undefined) return undefined;
    const supplierMs = Date.parse(raw);
    if (Number.isNaN(supplierMs)) return undefined;
    this.#clockOffsetMs = supplierMs + 500 - this.#now();
    return supplierMs - signedAtMs;
  }
}
