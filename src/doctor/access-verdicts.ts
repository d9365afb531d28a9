/** Verdicts on getting in: reachability, credentials, redirects, the clock, refusals. Pure. */
import { isLoopbackHost } from '../config/loopback';
import type { HotelApiError } from '../hotel-api/errors';
import { SUPPLIER_UNREACHABLE_CODES } from '../hotel-api/classify';
import { SIGNATURE_TOLERANCE_SECONDS } from '../hotel-api/signing';
import { type AccountSettings, DEFAULT_ACCOUNT_SETTINGS } from './account-settings';
import { type CheckName, type CheckResult, type Stop, resultsOf } from './check-result';

/** What the doctor's first signed call came to. */
export type FirstCall =
  { readonly kind: 'answered' } | { readonly kind: 'error'; readonly error: HotelApiError };

const NOTHING_WORKS = 'every supplier call: nothing can be searched, booked or cancelled';

/** `reachable`: an answer arrived, over what transport. */
export function reachableVerdict(baseUrl: string, first: FirstCall): CheckResult {
  const { ok, warn, fail } = resultsOf('reachable');
  const url = new URL(baseUrl);
  if (first.kind === 'error' && SUPPLIER_UNREACHABLE_CODES.has(first.error.code)) {
    return fail(
      `${url.origin} did not answer usefully: ${first.error.code}: ${first.error.message}`,
      NOTHING_WORKS,
    );
  }
  if (url.protocol === 'https:') {
    return ok(`${url.origin} answered over HTTPS; its certificate chain verified`);
  }
  if (isLoopbackHost(url.hostname)) {
    return ok(`${url.origin} answered over plain HTTP on loopback (a local simulator)`);
  }
  return warn(
    `${url.origin} answered over plain HTTP: the signed header travels in clear and can be replayed for ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes`,
    'nothing in the product; ask the supplier for its HTTPS address',
  );
}

/** `credentials`, from the first call and, after a CLOCK_SKEW, the retry the client would make. */
export function credentialsVerdict(
  first: FirstCall,
  retry: FirstCall | undefined,
  settings: AccountSettings = DEFAULT_ACCOUNT_SETTINGS,
): { result: CheckResult; stop?: Stop } {
  const { ok, warn, fail } = resultsOf('credentials');
  const accepted = (evidence: string) => ({ result: ok(evidence) });
  const stopped = (evidence: string, fix: string) => ({
    result: fail(evidence, `${NOTHING_WORKS}. ${fix}`),
    stop: { kind: 'unauthenticated', check: 'credentials' } as const,
  });
  if (first.kind === 'answered') {
    return accepted(`a request signed with ${settings.signedWith} was accepted`);
  }
  const e = first.error;
  if (e.code === 'AUTH_INVALID') {
    return stopped(
      `refused with 401 (${e.message}); the signature was within the clock window`,
      `Check ${settings.credentials} and the base URL's environment`,
    );
  }
  if (e.code === 'ACCOUNT_INACTIVE') {
    return stopped(
      `refused with 403: the company account is not active (${e.message})`,
      'Ask the supplier to activate the account',
    );
  }
  if (e.code === 'CLOCK_SKEW' && retry?.kind === 'answered') {
    return accepted(
      'accepted once signed with the supplier clock (clock correction); the first attempt was refused as CLOCK_SKEW (see clock)',
    );
  }
  if (e.code === 'CLOCK_SKEW') {
    return stopped(
      `refused with 401 while our signature was off the supplier clock: ${e.message}`,
      "Fix this host's clock (NTP) or set HOTEL_API_CLOCK_CORRECTION=true",
    );
  }
  if (e.statusCode !== undefined && e.statusCode >= 200 && e.statusCode < 300) {
    return accepted(`accepted (answered ${e.statusCode})`);
  }
  const seen = `not confirmed: the first call answered ${e.statusCode ?? 'nothing'} (${e.code})`;
  return { result: warn(seen) };
}

/** `redirects`: every path the client calls must answer where it is; the client never follows. */
export function redirectsVerdict(
  probes: readonly {
    readonly path: string;
    readonly statusCode: number;
    readonly location?: string;
  }[],
  settings: AccountSettings = DEFAULT_ACCOUNT_SETTINGS,
): CheckResult {
  const { ok, fail } = resultsOf('redirects');
  const redirected = probes.filter((p) => p.statusCode >= 300 && p.statusCode < 400);
  if (redirected.length === 0) {
    return ok(`no redirect on ${probes.map((p) => `GET ${p.path} (${p.statusCode})`).join(', ')}`);
  }
  return fail(
    redirected
      .map((p) => `GET ${p.path} answered ${p.statusCode} to ${p.location ?? '(no Location)'}`)
      .join('; '),
    `the client does not follow redirects (re-sending a POST /booking elsewhere is never safe): every call to these paths fails as CONTRACT. Point ${settings.baseUrl} at the final address, or have the supplier serve the documented paths`,
  );
}

/** Below this, a clock difference is noise (NTP keeps hosts far closer). */
export const CLOCK_OK_MS = 60_000;
const WINDOW_MS = SIGNATURE_TOLERANCE_SECONDS * 1000;

const seconds = (ms: number) => `${ms >= 0 ? '+' : '-'}${(Math.abs(ms) / 1000).toFixed(1)} s`;

/**
 * `clock`: the supplier's `Date` against ours and the signing window, and whether the client's
 * correction (signing with the offset from `Date` after a CLOCK_SKEW refusal) would cover it.
 */
export function clockVerdict(input: {
  /** The supplier's `Date` header of an answer. */
  readonly dateHeader: string | undefined;
  /** Our clock when that answer arrived, epoch ms. */
  readonly localMs: number;
  readonly clockCorrection: boolean;
}): CheckResult {
  const { ok, warn, fail } = resultsOf('clock');
  const correction = input.clockCorrection
    ? 'clock correction is on (HOTEL_API_CLOCK_CORRECTION)'
    : 'clock correction is off (HOTEL_API_CLOCK_CORRECTION=false)';
  const supplierMs = input.dateHeader === undefined ? NaN : Date.parse(input.dateHeader);
  if (Number.isNaN(supplierMs)) {
    return warn(
      input.dateHeader === undefined
        ? 'the supplier sends no Date header'
        : `the supplier's Date header is unreadable: ${JSON.stringify(input.dateHeader.slice(0, 60))}`,
      'clock correction cannot work without it, and a refusal caused by our clock reads as AUTH_INVALID (bad credentials) instead of CLOCK_SKEW',
    );
  }
  // Date has one-second resolution: the supplier's time is taken mid-second, as the client does.
  const offsetMs = supplierMs + 500 - input.localMs;
  const abs = Math.abs(offsetMs);
  const what = `the supplier clock is ${seconds(offsetMs)} from ours; signatures are accepted within ±${SIGNATURE_TOLERANCE_SECONDS} s; ${correction}`;
  if (abs < CLOCK_OK_MS) return ok(what);
  if (abs <= WINDOW_MS && !input.clockCorrection) {
    return warn(
      what,
      `a further ${Math.round((WINDOW_MS - abs) / 1000)} s of drift and every signed request is refused`,
    );
  }
  if (input.clockCorrection) {
    return warn(
      `${what}: it covers the difference`,
      abs > WINDOW_MS
        ? "each worker's first call after it starts is refused once (CLOCK_SKEW, retried signed with the supplier clock); fix this host's clock (NTP)"
        : "nothing yet; fix this host's clock (NTP)",
    );
  }
  return fail(
    what,
    'every signed request is refused (401): set HOTEL_API_CLOCK_CORRECTION=true or fix the clock (NTP)',
  );
}

/** What the client makes of a refusal it provoked on purpose (a 2xx has no error). */
export interface Refusal {
  readonly statusCode: number;
  /** `classifyResponse` of the answer; absent for a 2xx. */
  readonly classified?: HotelApiError;
}

/**
 * `wrong-secret` (expects AUTH_INVALID) and `inactive-account` (expects ACCOUNT_INACTIVE): the
 * refusal must take the fail-fast path — not retried, not ambiguous — and say the right reason.
 */
export function refusalVerdict(
  name: Extract<CheckName, 'wrong-secret' | 'inactive-account'>,
  answer: Refusal,
): CheckResult {
  const { ok, warn, fail } = resultsOf(name);
  const expected = name === 'wrong-secret' ? 'AUTH_INVALID' : 'ACCOUNT_INACTIVE';
  const asked =
    name === 'wrong-secret' ? 'a request signed with a wrong secret' : 'the inactive account';
  const e = answer.classified;
  if (e === undefined) {
    return warn(
      name === 'wrong-secret'
        ? `${asked} was accepted (${answer.statusCode}): the supplier does not check signatures`
        : `${asked} was accepted (${answer.statusCode}): is that key's account really inactive?`,
      name === 'wrong-secret'
        ? 'nothing in the product; a security finding for the supplier'
        : undefined,
    );
  }
  const classified = `answered ${answer.statusCode}, classified ${e.code} (${e.retryable ? 'retried' : 'not retried'}, ${e.ambiguous ? 'ambiguous' : 'not ambiguous'})`;
  if (e.code === expected) {
    return ok(`${asked}: ${classified}: bookings fail fast with the reason`);
  }
  if (e.retryable || e.ambiguous) {
    return fail(
      `${asked}: ${classified}; the client expects ${expected}`,
      'refused credentials would not fail fast: calls are retried, and a refused POST /booking counts as possibly made and waits for an operator (NEEDS_RECONCILIATION)',
    );
  }
  return warn(
    `${asked}: ${classified}; the client expects ${expected}`,
    `the booking still fails fast, but reports ${e.code}, which points operators at the wrong cause`,
  );
}
