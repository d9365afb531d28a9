/**
 * What the supplier surface (supplier.ts) calls with and judges by: its company and a guest whose
 * every datum is a sentinel, the worker's configuration for a simulator, and the documented result
 * of one call — a valid typed answer, or a `HotelApiError` with its code's flags from the
 * classification table, ambiguous for a booking the supplier processed, `TIMEOUT` for a trickle,
 * the size error for a body over the cap, and never the key, the secret, a signature or the
 * guest's data in what it says.
 */
import { loadConfig } from '../../src/config';
import {
  CLASSIFICATION_TABLE,
  isHotelApiError,
  MAX_RETRY_AFTER_MS,
  type HotelApiError,
} from '../../src/hotel-api/errors';
import { DEFAULT_MAX_RESPONSE_BYTES as CAP } from '../../src/hotel-api/client';
import type { EndpointName, HostileApplied, HostileKind } from '../simulator';
import { defect, type Tally } from './campaign';

const KEY = 'fuzz-supplier-key-3e1f';
const SECRET = 'fuzz-supplier-secret-7a9c41';

export const FUZZ_COMPANY = { key: KEY, secret: SECRET, active: true } as const;

/**
 * A guest whose every datum is a sentinel: found in an error, it leaked. Each is at most 10
 * characters, the most of a text V8 quotes around a bad token in a JSON parse error.
 */
export const GUEST = {
  firstName: 'Zq7first',
  lastName: 'Xw4last',
  email: 'zq7@g.test',
  phone: '3339876543',
} as const;

/** The worker's timeouts, shortened through their variables so that a trickle ends quickly. */
const TIMEOUT_ENV = {
  HOTEL_API_BOOKING_TIMEOUT_MS: '2500',
  HOTEL_API_READ_TIMEOUT_MS: '1500',
  HOTEL_API_SEARCH_TIMEOUT_MS: '2000',
};

/** The worker's configuration for a supplier at `baseUrl` (src/worker.ts builds its client so). */
export function fuzzConfig(baseUrl: string, temporalEnv: Readonly<Record<string, string>> = {}) {
  return loadConfig({
    ...temporalEnv,
    HOTEL_API_BASE_URL: baseUrl,
    HOTEL_API_KEY: KEY,
    HOTEL_API_SECRET: SECRET,
    ...TIMEOUT_ENV,
  });
}

/** Our HMAC-SHA256 in hex. */
const SIGNATURE = /[0-9a-f]{64}/i;

/** What of the secrets or the guest's data `text` holds, or `undefined`. */
export function leaked(text: string): string | undefined {
  if (text.includes(SECRET)) return 'the secret';
  if (text.includes(KEY)) return 'the key';
  if (SIGNATURE.test(text)) return 'a signature';
  const lower = text.toLowerCase();
  return Object.values(GUEST).some((v) => lower.includes(v.toLowerCase()))
    ? 'guest data'
    : undefined;
}

/** Everything an error says: its message, its causes' and its JSON. */
function errorText(err: HotelApiError): string {
  const parts: string[] = [JSON.stringify(err.toJSON())];
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur instanceof Error; depth++) {
    parts.push(cur.message);
    cur = cur.cause;
  }
  return parts.join('\n');
}

/** One input: which answer is spoiled, how, and the seed of its variation. */
export interface Input {
  readonly endpoint: EndpointName;
  readonly kind: HostileKind;
  readonly seed: number;
}

/** What a call gave within its deadline (and margin), or that it gave nothing. */
export type Settled = { readonly value: unknown } | { readonly error: unknown } | 'stuck';

/** One judged call: its input, what the simulator did to it, the booking it asked about. */
export interface Judged {
  readonly input: Input;
  readonly applied: HostileApplied | undefined;
  readonly bookingId: number | undefined;
}

const ROW = new Map(CLASSIFICATION_TABLE.map((r) => [r.code, r]));

/** Counts the defects of what one call gave. */
export function judge(t: Tally, call: Judged, settled: Settled): void {
  const { input, applied } = call;
  const what = `${input.endpoint} × ${input.kind} × seed ${input.seed} (${applied?.variant ?? 'not applied'})`;
  if (settled === 'stuck') return defect(t, 'stuck', what, 'no result within the deadline');
  if ('value' in settled) return judgeValue(t, call, settled.value, what);
  const err = settled.error;
  if (!isHotelApiError(err)) {
    const bug = err instanceof TypeError || err instanceof RangeError;
    return defect(t, bug ? 'crashes' : 'unclear', what, `untyped error: ${String(err)}`);
  }
  const leak = leaked(errorText(err));
  if (leak !== undefined) defect(t, 'leaks', what, `${leak} in ${err.code}: ${err.message}`);
  for (const problem of errorProblems(call, err)) defect(t, 'unclear', what, problem);
}

/** Where a typed error is not the documented one. */
function errorProblems({ input, applied }: Judged, err: HotelApiError): string[] {
  const row = ROW.get(err.code);
  const retryable = row?.retryable === 'if-clock-correction' ? err.retryable : row?.retryable;
  const after = err.retryAfterMs;
  return [
    row?.ambiguous !== err.ambiguous || retryable !== err.retryable
      ? `${err.code} with flags not its code's`
      : '',
    applied !== undefined && err.code === 'CONNECTION_FAILED_BEFORE_SEND'
      ? 'a request the supplier received taken as never sent'
      : '',
    input.endpoint === 'booking' && applied?.processed === true && !err.ambiguous
      ? `a booking the supplier processed taken as refused (${err.code})`
      : '',
    input.kind === 'trickle' && err.code !== 'TIMEOUT'
      ? `a trickle ended by ${err.code}, not by the deadline`
      : '',
    input.kind === 'huge-body' &&
    (err.code !== 'CONTRACT' || !err.message.includes(`${CAP}-byte cap`))
      ? `a body over the cap refused by ${err.code}: ${err.message}`
      : '',
    after !== undefined &&
    !(Number.isSafeInteger(after) && after >= 0 && after <= MAX_RETRY_AFTER_MS)
      ? `retryAfterMs ${after}`
      : '',
  ].filter((p) => p !== '');
}

/** A value is documented only when it is one the answer may give. */
function judgeValue(t: Tally, { input, bookingId }: Judged, value: unknown, what: string): void {
  if (input.kind === 'huge-body' || input.kind === 'trickle')
    return defect(t, 'unclear', what, `answered ${JSON.stringify(value).slice(0, 80)}`);
  const id = (value as { booking_id?: unknown }).booking_id;
  if (input.endpoint === 'booking' && !(Number.isSafeInteger(id) && (id as number) > 0))
    defect(t, 'unclear', what, `a booking id ${String(id)} taken as a booking`);
  if (input.endpoint === 'retrieve' && id !== bookingId)
    defect(t, 'unclear', what, `booking ${bookingId} read as booking ${String(id)}`);
}
