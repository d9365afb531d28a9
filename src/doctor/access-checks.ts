/**
 * The doctor's first checks: reaching the supplier with our credentials (one retry after a
 * CLOCK_SKEW, as Temporal's retry would), redirects, the clock, and the refusals.
 */
import { type Credentials, classifyResponse } from '../hotel-api';
import type { RawAnswer } from '../hotel-api/raw-request';
import type { StaticReferenceListResponse } from '../hotel-api/static-content';
import { firstHeader } from '../hotel-api/client';
import {
  type FirstCall,
  type Refusal,
  clockVerdict,
  credentialsVerdict,
  reachableVerdict,
  redirectsVerdict,
  refusalVerdict,
} from './access-verdicts';
import type { ReadOutcome } from './answer-verdicts';
import type { CheckResult, Stop } from './check-result';
import { type SupplierSession, attempt } from './supplier-session';

export interface AccessOutcome {
  readonly results: CheckResult[];
  readonly stop?: Stop;
  /** The static lists, when the first call returned them (they are also a read check). */
  readonly staticLists?: ReadOutcome<StaticReferenceListResponse>;
}

async function staticCall(session: SupplierSession) {
  const outcome = await attempt(() => session.client.staticReferenceList({ language: 'en' }));
  const first: FirstCall = outcome.ok
    ? { kind: 'answered' }
    : { kind: 'error', error: outcome.error };
  return { first, outcome };
}

/** `reachable` and `credentials`; stops the doctor when either makes the rest pointless. */
export async function checkAccess(session: SupplierSession): Promise<AccessOutcome> {
  let call = await staticCall(session);
  const first = call.first;
  let retry: FirstCall | undefined;
  if (first.kind === 'error' && first.error.code === 'CLOCK_SKEW' && first.error.retryable) {
    call = await staticCall(session);
    retry = call.first;
  }
  const reachable = reachableVerdict(session.config.baseUrl, first);
  if (reachable.verdict === 'fail') {
    return { results: [reachable], stop: { kind: 'unreachable', check: 'reachable' } };
  }
  const credentials = credentialsVerdict(first, retry, session.settings);
  return {
    results: [reachable, credentials.result],
    stop: credentials.stop,
    staticLists: call.outcome,
  };
}

/** The first documented read path; the refusals are provoked there too. */
const STATIC_PROBE = { path: '/static_content_reference_list', query: 'language=en' };

/** The documented read paths, asked without following redirects. */
const REDIRECT_PROBES: readonly { path: string; query: string }[] = [
  STATIC_PROBE,
  { path: '/properties/content/', query: 'country_code=IT' },
  { path: '/properties/availability', query: '' },
  { path: '/price-check', query: '' },
  { path: '/retrieve', query: '' },
];

/** `redirects` and `clock` (from the `Date` of the first answer). */
export async function checkRedirectsAndClock(session: SupplierSession): Promise<CheckResult[]> {
  const probes: { path: string; statusCode: number; location?: string }[] = [];
  let dated: { answer: RawAnswer; localMs: number } | undefined;
  for (const p of REDIRECT_PROBES) {
    const answer = await session.raw({ method: 'GET', path: p.path, query: p.query });
    dated ??= { answer, localMs: Date.now() };
    const location = firstHeader(answer.headers, 'location');
    probes.push({ path: p.path, statusCode: answer.statusCode, location });
  }
  return [
    redirectsVerdict(probes, session.settings),
    clockVerdict({
      dateHeader: dated === undefined ? undefined : firstHeader(dated.answer.headers, 'date'),
      localMs: dated?.localMs ?? Date.now(),
      clockCorrection: session.config.clockCorrection,
    }),
  ];
}

/** What the client would make of a raw answer to a request signed at `answer.signedAtMs`. */
export function asRefusal(session: SupplierSession, answer: RawAnswer, path: string): Refusal {
  if (answer.statusCode >= 200 && answer.statusCode < 300) return { statusCode: answer.statusCode };
  const date = Date.parse(firstHeader(answer.headers, 'date') ?? '');
  return {
    statusCode: answer.statusCode,
    classified: classifyResponse({
      endpoint: path,
      method: 'GET',
      statusCode: answer.statusCode,
      headers: answer.headers,
      body: answer.json,
      ...(Number.isNaN(date) || answer.signedAtMs === undefined
        ? {}
        : { signedSkewMs: date - answer.signedAtMs }),
      clockCorrection: session.config.clockCorrection,
      secrets: [session.config.secret, session.config.key],
    }),
  };
}

async function refusal(session: SupplierSession, credentials: Credentials): Promise<Refusal> {
  const answer = await session.raw({ method: 'GET', ...STATIC_PROBE, credentials });
  return asRefusal(session, answer, STATIC_PROBE.path);
}

/** `wrong-secret`, and `inactive-account` when a second key was given. */
export async function checkRefusals(
  session: SupplierSession,
  inactive: Credentials | undefined,
): Promise<CheckResult[]> {
  const { key, secret } = session.config;
  const results = [
    refusalVerdict('wrong-secret', await refusal(session, { key, secret: `${secret}-not-it` })),
  ];
  if (inactive !== undefined) {
    results.push(refusalVerdict('inactive-account', await refusal(session, inactive)));
  }
  return results;
}
