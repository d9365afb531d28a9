/** What the doctor reports: one result per named check, and the exit code the report earns. Pure. */

/** `ok`: as the product expects. `warn`: works, but worth knowing. `fail`: would break bookings. */
export type Verdict = 'ok' | 'warn' | 'fail';

/** The checks of `doctor namespace` (namespace-verdicts.ts), in the order they run. */
export const NAMESPACE_CHECKS = [
  'temporal-connection',
  'temporal-release',
  'namespace',
  'search-attributes',
  'retention',
  'booking-workers',
  'order-events-workers',
  'payload-keys',
  'earlier-versions',
  'codec-server',
] as const;

/** The checks, by the names the report, the docs and scripts use. Add freely, never rename. */
export const CHECK_NAMES = [
  'reachable',
  'credentials',
  'redirects',
  'clock',
  'wrong-secret',
  'inactive-account',
  'static-lists',
  'content-list',
  'content-detail',
  'availability',
  'date-formats',
  'price-check',
  'validation-errors',
  'array-encoding',
  'latency',
  'rate-limit',
  'book-price-check',
  'book-create',
  'book-retrieve',
  'book-custom-field',
  'book-stay-terms',
  'book-cancel',
  ...NAMESPACE_CHECKS,
] as const;

/** The checks of the opt-in test booking (`--book`), in the order they run. */
export const BOOK_CHECKS: readonly CheckName[] = CHECK_NAMES.filter((n) => n.startsWith('book-'));
export type CheckName = (typeof CHECK_NAMES)[number];

type Info = readonly string[];

interface ResultBase {
  readonly name: CheckName;
  /** What was seen, in plain words (never a secret or personal data). */
  readonly evidence: string;
  /** Facts worth reading that change nothing, e.g. fields the product does not know. */
  readonly info?: Info;
}

/** A check's outcome; a `fail` always says what it would break. */
export type CheckResult =
  | (ResultBase & { readonly verdict: 'ok' })
  | (ResultBase & { readonly verdict: 'warn'; readonly breaks?: string })
  | (ResultBase & { readonly verdict: 'fail'; readonly breaks: string });

/** The result builders of one check, its name bound: `const { ok, fail } = resultsOf('clock')`. */
export const resultsOf = (name: CheckName) => {
  const result = (verdict: Verdict, evidence: string, breaks?: string, info?: Info) =>
    ({
      name,
      verdict,
      evidence,
      ...(breaks === undefined ? {} : { breaks }),
      ...(info?.length ? { info } : {}),
    }) as CheckResult;
  return {
    ok: (evidence: string, info?: Info) => result('ok', evidence, undefined, info),
    warn: (evidence: string, breaks?: string, info?: Info) =>
      result('warn', evidence, breaks, info),
    fail: (evidence: string, breaks: string, info?: Info) => result('fail', evidence, breaks, info),
  };
};

export const ok = (name: CheckName, evidence: string, info?: Info) =>
  resultsOf(name).ok(evidence, info);
export const warn = (name: CheckName, evidence: string, breaks?: string, info?: Info) =>
  resultsOf(name).warn(evidence, breaks, info);
export const fail = (name: CheckName, evidence: string, breaks: string, info?: Info) =>
  resultsOf(name).fail(evidence, breaks, info);

/** Why the doctor stopped before the other checks: nothing further can be learnt. */
export interface Stop {
  readonly kind: 'unreachable' | 'unauthenticated';
  readonly check: CheckName;
}

export interface Skipped {
  readonly name: CheckName;
  readonly reason: string;
}

/** Results in the order of {@link CHECK_NAMES} (stable for results of the same name). */
export function inCheckOrder(results: readonly CheckResult[]): CheckResult[] {
  const rank = (r: CheckResult) => CHECK_NAMES.indexOf(r.name);
  return [...results].sort((a, b) => rank(a) - rank(b));
}

/** The doctors' exit codes (docs/doctor.md): unreachable is 2, "not checked", not the tool's 3. */
export const DoctorExit = { OK: 0, WOULD_BREAK: 1, CANNOT_CHECK: 2 } as const;
export type DoctorExit = (typeof DoctorExit)[keyof typeof DoctorExit];

export function doctorExitCode(report: {
  readonly checks: readonly CheckResult[];
  readonly stop?: Stop | undefined;
}): DoctorExit {
  if (report.stop !== undefined) return DoctorExit.CANNOT_CHECK;
  return report.checks.some((c) => c.verdict === 'fail') ? DoctorExit.WOULD_BREAK : DoctorExit.OK;
}
