/**
 * The doctor's line to the supplier: the product's client with every call's duration recorded, and
 * raw requests for what the client hides, signed with the client's clock, their headers kept.
 */
import { Pool } from 'undici';
import { type HotelApiConfig, type CallEvent, apiBase, HotelApiClient } from '../hotel-api/client';
import { AVAILABILITY } from '../hotel-api/availability';
import { CREATE_BOOKING } from '../hotel-api/booking';
import { type ResponseHeaders, isHotelApiError } from '../hotel-api/errors';
import { type RawAnswer, type RawRequest, rawRequest } from '../hotel-api/raw-request';
import { type AccountSettings, DEFAULT_ACCOUNT_SETTINGS } from './account-settings';
import type { ReadOutcome } from './answer-verdicts';
import type { EndpointTimings } from './load-verdicts';

/** A call through the client: its answer, or the HotelApiError it was classified as. */
export async function attempt<T>(call: () => Promise<T>): Promise<ReadOutcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    if (!isHotelApiError(err)) throw err;
    return { ok: false, error: err };
  }
}

export class SupplierSession {
  readonly client: HotelApiClient;
  readonly config: HotelApiConfig;
  /** Where the account's settings are set, for evidence and advice. */
  readonly settings: AccountSettings;
  /** Headers of every raw answer, for the rate-limit check. */
  readonly headers: ResponseHeaders[] = [];
  /** 429 answers met, through the client or raw. */
  rateLimited = 0;
  readonly #calls: CallEvent[] = [];
  readonly #pool: Pool;

  constructor(config: HotelApiConfig, settings: AccountSettings = DEFAULT_ACCOUNT_SETTINGS) {
    this.config = config;
    this.settings = settings;
    this.client = new HotelApiClient(config, { onCall: (e) => this.#record(e) });
    this.#pool = new Pool(apiBase(config.baseUrl).origin, { connections: 2 });
  }

  #record(event: CallEvent): void {
    this.#calls.push(event);
    if (event.statusCode === 429) this.rateLimited += 1;
  }

  /** The clock a signature is made with: ours, corrected as the client corrects it. */
  signingNow(): number {
    return Date.now() + (this.config.clockCorrection ? this.client.clockOffsetMs : 0);
  }

  /** A raw request signed at {@link signingNow} unless told otherwise; its headers are kept. */
  async raw(req: RawRequest): Promise<RawAnswer> {
    const answer = await rawRequest(
      this.config,
      { signAtMs: this.signingNow(), ...req },
      this.#pool,
    );
    this.headers.push(answer.headers);
    if (answer.statusCode === 429) this.rateLimited += 1;
    return answer;
  }

  /** Durations of the client's calls per endpoint, with the timeout that applies to each. */
  timings(): EndpointTimings[] {
    const byEndpoint = new Map<string, CallEvent[]>();
    for (const call of this.#calls) {
      const key = `${call.method} ${call.endpoint}`;
      byEndpoint.set(key, [...(byEndpoint.get(key) ?? []), call]);
    }
    return [...byEndpoint].map(([endpoint, calls]) => {
      const answered = calls.filter((c) => c.code !== 'TIMEOUT' && c.statusCode !== undefined);
      return {
        endpoint,
        durationsMs: answered.map((c) => c.durationMs),
        timeouts: calls.filter((c) => c.code === 'TIMEOUT').length,
        ...this.#timeoutOf(calls[0]!.endpoint),
      };
    });
  }

  #timeoutOf(endpoint: string): { timeoutMs: number; timeoutVariable: string } {
    const t = this.config.timeouts;
    const named = this.settings.timeouts;
    if (endpoint === AVAILABILITY.endpoint) {
      return { timeoutMs: t.searchMs, timeoutVariable: named.search };
    }
    if (endpoint === CREATE_BOOKING.endpoint) {
      return { timeoutMs: t.bookingMs, timeoutVariable: named.booking };
    }
    return { timeoutMs: t.readMs, timeoutVariable: named.read };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.client.close(), this.#pool.close()]);
  }
}
