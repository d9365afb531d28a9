/** Verdicts on speed and limits: latency against the configured timeouts, rate-limit headers. Pure. */
import { firstHeader } from '../hotel-api/client';
import type { ResponseHeaders } from '../hotel-api/errors';
import { type AccountSettings, DEFAULT_ACCOUNT_SETTINGS } from './account-settings';
import { type CheckResult, resultsOf } from './check-result';

/** The nearest-rank percentile of `values` (`p` in 0..100); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

export interface EndpointTimings {
  /** `GET /properties/availability`. */
  readonly endpoint: string;
  /** Durations of calls that got an answer, ms. */
  readonly durationsMs: readonly number[];
  readonly timeouts: number;
  readonly timeoutMs: number;
  /** Its variable, for the evidence. */
  readonly timeoutVariable: string;
}

/** At or above this share of its timeout, an endpoint is too close for comfort. */
export const LATENCY_WARN_SHARE = 0.5;

const ms = (v: number) => (v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);

/** `latency`: p50/p95 per endpoint against its configured timeout. */
export function latencyVerdict(
  endpoints: readonly EndpointTimings[],
  settings: AccountSettings = DEFAULT_ACCOUNT_SETTINGS,
): CheckResult {
  const { ok, warn, fail } = resultsOf('latency');
  const lines: string[] = [];
  const slow: string[] = [];
  const close: string[] = [];
  for (const e of endpoints) {
    const calls = e.durationsMs.length + e.timeouts;
    if (calls === 0) continue;
    const p50 = percentile(e.durationsMs, 50);
    const p95 = percentile(e.durationsMs, 95);
    const timing = e.durationsMs.length > 0 ? `p50 ${ms(p50)}, p95 ${ms(p95)}` : 'no answer';
    const timedOut = e.timeouts > 0 ? `, ${e.timeouts} timed out` : '';
    lines.push(
      `${e.endpoint} ${timing} over ${calls} call(s)${timedOut} (${e.timeoutVariable} ${ms(e.timeoutMs)})`,
    );
    if (e.timeouts > 0 || p95 >= e.timeoutMs) slow.push(e.endpoint);
    else if (p95 >= e.timeoutMs * LATENCY_WARN_SHARE) close.push(e.endpoint);
  }
  const evidence = lines.length === 0 ? 'no calls measured' : lines.join('; ');
  if (slow.length > 0) {
    return fail(
      evidence,
      `calls to ${slow.join(', ')} exceed their timeout: reads fail as TIMEOUT and are retried; a POST /booking that times out is ambiguous and waits for an operator (NEEDS_RECONCILIATION). ${settings.raiseTimeout}`,
    );
  }
  if (close.length > 0) {
    return warn(
      evidence,
      `${close.join(', ')} take(s) more than half of the timeout: a slower day turns into TIMEOUTs`,
    );
  }
  return ok(evidence);
}

/** Rate-limit headers as suppliers send them (the IETF draft's and the common x- forms). */
const LIMIT_HEADERS = [
  ...['policy', 'limit', 'remaining', 'reset'].flatMap((k) => [
    `ratelimit-${k}`,
    `x-ratelimit-${k}`,
  ]),
  'ratelimit',
  'retry-after',
];

/** Requests per second from a policy such as `10;w=1` or `"default";q=100;w=60`. */
export function policyPerSecond(policy: string): number | undefined {
  const quota =
    /(?:^|[;,\s])q=(\d+(?:\.\d+)?)/.exec(policy)?.[1] ?? /^\s*(\d+(?:\.\d+)?)/.exec(policy)?.[1];
  const window = /(?:^|;)\s*w=(\d+(?:\.\d+)?)/.exec(policy)?.[1];
  if (quota === undefined || window === undefined || Number(window) <= 0) return undefined;
  return Number(quota) / Number(window);
}

/** `rate-limit`: what the supplier announces against the account's cap (`SUPPLIER_MAX_CALLS_PER_SECOND`). */
export function rateLimitVerdict(input: {
  readonly headers: readonly ResponseHeaders[];
  readonly maxCallsPerSecond: number;
  /** 429 answers met during the doctor's own calls. */
  readonly rateLimited: number;
  /** Where the cap is set. @default SUPPLIER_MAX_CALLS_PER_SECOND */
  readonly capSetting?: string;
}): CheckResult {
  const { ok, warn } = resultsOf('rate-limit');
  const setting = input.capSetting ?? DEFAULT_ACCOUNT_SETTINGS.maxCallsPerSecond;
  const max = input.maxCallsPerSecond;
  const cap = `${setting} is ${max}${max === 0 ? ' (no cap)' : ''}`;
  const seen = new Map<string, string>();
  for (const h of input.headers) {
    for (const name of LIMIT_HEADERS) {
      const v = firstHeader(h, name);
      if (v !== undefined && !seen.has(name)) seen.set(name, v.slice(0, 80));
    }
  }
  const shown = [...seen].map(([k, v]) => `${k}: ${v}`).join(', ');
  const policy = seen.get('ratelimit-policy') ?? seen.get('x-ratelimit-policy');
  const perSecond = policy === undefined ? undefined : policyPerSecond(policy);
  const tooFast = perSecond !== undefined && (max === 0 || max > perSecond);
  const throttled =
    '429s follow: refused before processing, so retried safely, but bookings slow down';
  if (input.rateLimited > 0) {
    return warn(
      `the supplier answered 429 to ${input.rateLimited} of the doctor's calls${shown === '' ? '' : ` (${shown})`}; ${cap}`,
      throttled,
    );
  }
  if (seen.size === 0) return ok(`no rate-limit headers; ${cap}`);
  if (tooFast) {
    return warn(
      `the supplier announces ${shown} (${perSecond} per second); ${cap}`,
      `set ${setting} to at most ${perSecond}, else ${throttled}`,
    );
  }
  if (perSecond === undefined) {
    return warn(
      `the supplier announces ${shown} without a window this check can read; ${cap}`,
      'compare by hand: above the supplier limit, 429s slow bookings down',
    );
  }
  return ok(`the supplier announces ${shown} (${perSecond} per second); ${cap}`);
}
