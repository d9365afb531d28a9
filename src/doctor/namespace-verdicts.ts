/** `doctor namespace` verdicts: the connection, namespace, search attributes, retention. Pure. */
import { isLoopbackAddress } from '../config/loopback';
import type { CommandTarget } from '../namespace/operator-commands';
import { createNamespaceHint, retentionCommands } from '../namespace/operator-commands';
import {
  type SearchAttributeSpec,
  cliTypeName,
  conflictLines,
  planSearchAttributes,
  PRODUCT_SEARCH_ATTRIBUTES,
} from '../namespace/search-attribute-plan';
import {
  minorOf,
  NEWEST_RELEASE,
  OLDEST_RELEASE,
  releaseSupport,
  settingsToSet,
} from '../shared/temporal-releases';
import { type CheckResult, type Stop, ok, resultsOf } from './check-result';

/**
 * The least retention the contract needs, days: a closed order's runs tell a second start of the
 * same order id that it was booked (docs/contract.md, "After retention").
 */
export const MIN_RETENTION_DAYS = 30;

const DAY_S = 86_400;

export type ConnectionFacts =
  | { readonly kind: 'connected' }
  /** Nothing answered (TCP refused, no answer in time). */
  | { readonly kind: 'unreachable'; readonly reason: string }
  /** TLS or credentials refused: the line says which variable to change. */
  | { readonly kind: 'refused'; readonly line: string };

const NOTHING_RUNS = 'every booking: nothing can be started, run or looked after';

/** `temporal-connection`: Temporal answered with the configured security. */
export function temporalConnectionVerdict(input: {
  readonly address: string;
  /** describeTemporalSecurity of the configuration (never a key). */
  readonly security: string;
  readonly tls: boolean;
  readonly facts: ConnectionFacts;
}): { result: CheckResult; stop?: Stop } {
  const { ok, warn, fail } = resultsOf('temporal-connection');
  const at = `Temporal at ${input.address}`;
  const f = input.facts;
  const stop = (kind: Stop['kind']) => ({ kind, check: 'temporal-connection' }) as const;
  if (f.kind === 'unreachable') {
    const breaks = `${NOTHING_RUNS}. Check TEMPORAL_ADDRESS, and that the server runs and this host may reach it`;
    const evidence = `${at} did not answer (${f.reason})`;
    return { result: fail(evidence, breaks), stop: stop('unreachable') };
  }
  if (f.kind === 'refused') {
    return { result: fail(f.line, NOTHING_RUNS), stop: stop('unauthenticated') };
  }
  if (input.tls || isLoopbackAddress(input.address)) {
    const where = input.tls ? '' : ' on loopback (a local server)';
    return { result: ok(`${at} answered${where}: ${input.security}`) };
  }
  return {
    result: warn(
      `${at} answered in plaintext (${input.security})`,
      'nothing yet; but workflow ids, search attributes and the encrypted payloads travel unprotected, and whoever reaches the port can act on the namespace: set TEMPORAL_TLS and its certificates, or TEMPORAL_API_KEY (docs/deploying.md)',
    ),
  };
}

/** `temporal-release`: the server's version against the supported releases (src/shared/temporal-releases.ts). */
export function temporalReleaseVerdict(input: {
  readonly address: string;
  /** GetSystemInfo's `serverVersion`. */
  readonly serverVersion: string;
}): CheckResult {
  const { ok, warn } = resultsOf('temporal-release');
  const v = input.serverVersion || '(none reported)';
  const range = `${minorOf(OLDEST_RELEASE)}–${minorOf(NEWEST_RELEASE)}`;
  if (/\.tmprl\.cloud(:\d+)?$/.test(input.address)) {
    return ok(`Temporal Cloud (server ${v}): supported`);
  }
  const support = releaseSupport(v);
  const settings = settingsToSet(v);
  if (support === 'supported') {
    // Off by default on this release, and invisible from here: said, not checked.
    const info = settings.map(
      (x) => `${x.what} needs ${x.setting} in its dynamic config (the default from ${x.since})`,
    );
    return ok(`Temporal ${v}: a supported release (${range})`, info);
  }
  const set =
    settings.length === 0
      ? ''
      : `; until then set ${settings.map((x) => `${x.setting} (${x.what})`).join(' and ')} in its dynamic config`;
  const said =
    support === 'older'
      ? `Temporal ${v} is older than the supported releases (${range})`
      : support === 'newer'
        ? `Temporal ${v} is newer than the releases this version was run on (${range})`
        : `Temporal reported no version this product can read (${v})`;
  const fix =
    support === 'older'
      ? `upgrade it one minor release at a time, schema first (docs/upgrading.md)${set}`
      : 'run `TEMPORAL_RELEASE=… npm test` against it, or use a supported release';
  return warn(said, fix);
}

export type NamespaceFacts =
  | {
      readonly kind: 'found';
      /** `REGISTERED`, `DEPRECATED` or `DELETED`. */
      readonly state: string;
      readonly retentionSeconds: number | undefined;
    }
  | { readonly kind: 'not-found'; readonly details: string }
  | { readonly kind: 'refused'; readonly code: string; readonly details: string };

/** `namespace`: the configured namespace exists, is registered and this identity may use it. */
export function namespaceVerdict(
  target: CommandTarget,
  facts: NamespaceFacts,
): { result: CheckResult; stop?: Stop } {
  const { ok, fail } = resultsOf('namespace');
  const ns = `namespace '${target.namespace}'`;
  const failed = (evidence: string, fix: string) => fail(evidence, `${NOTHING_RUNS}: ${fix}`);
  if (facts.kind === 'not-found') {
    return {
      result: failed(
        `there is no ${ns} at ${target.address} (${facts.details})`,
        `${createNamespaceHint(target, MIN_RETENTION_DAYS)}, then \`hotel-booking setup\`; or set TEMPORAL_NAMESPACE to the one the workers use`,
      ),
    };
  }
  if (facts.kind === 'refused') {
    return {
      result: failed(
        `${ns} refused this identity (${facts.code}: ${facts.details})`,
        `give the API key or client certificate access to ${ns} (TEMPORAL_API_KEY, TEMPORAL_TLS_CERT), or set TEMPORAL_NAMESPACE`,
      ),
      stop: { kind: 'unauthenticated', check: 'namespace' },
    };
  }
  if (facts.state !== 'REGISTERED') {
    const fix = 'use a registered namespace (TEMPORAL_NAMESPACE)';
    return { result: failed(`${ns} is ${facts.state}`, fix) };
  }
  return { result: ok(`${ns} is registered`) };
}

/** The namespace's search attributes as read, or (when listing was refused) as queries took them. */
export type SearchAttributeFacts =
  | { readonly kind: 'listed'; readonly existing: Readonly<Record<string, string>> }
  | {
      readonly kind: 'queried';
      /** Why listing was refused (`PERMISSION_DENIED: …`). */
      readonly listRefusal: string;
      /** The product's attributes a query naming them was refused for. */
      readonly refused: readonly string[];
    };

const SETUP =
  'Run `hotel-booking setup` (where this identity may not register them, it prints the commands for an admin)';

const names = (specs: readonly SearchAttributeSpec[]) => specs.map((s) => s.name).join(', ');

/** `search-attributes`: every one of the product's, with its type. */
export function searchAttributesVerdict(
  target: CommandTarget,
  facts: SearchAttributeFacts,
): CheckResult {
  const { ok, warn, fail } = resultsOf('search-attributes');
  const all = PRODUCT_SEARCH_ATTRIBUTES;
  const stall =
    'bookings stall: a workflow task that writes a missing or wrongly typed attribute fails and is retried until it is fixed, and the views and `list` cannot query it';
  if (facts.kind === 'queried') {
    const refused = all.filter((s) => facts.refused.includes(s.name));
    if (refused.length > 0) {
      return fail(
        `not accepted in queries: ${names(refused)} (listing was refused: ${facts.listRefusal})`,
        `${stall}. ${SETUP}`,
      );
    }
    return warn(
      `all ${all.length} are accepted in queries; their types were not verified (listing was refused: ${facts.listRefusal})`,
      `nothing if their types are right; check with \`temporal operator search-attribute list --namespace ${target.namespace}\``,
    );
  }
  const plan = planSearchAttributes(facts.existing, all);
  if (plan.missing.length === 0 && plan.conflicts.length === 0) {
    return ok(
      `all ${all.length} registered with their types (${all.map((s) => `${s.name} ${cliTypeName(s.type)}`).join(', ')})`,
    );
  }
  const seen: string[] = [];
  const fixes: string[] = [];
  if (plan.missing.length > 0) {
    seen.push(`missing: ${names(plan.missing)}`);
    fixes.push(SETUP);
  }
  if (plan.conflicts.length > 0) {
    seen.push(`of another type: ${conflictLines(plan.conflicts).join('; ')}`);
    fixes.push(
      'An attribute of another type cannot be changed in place: use another namespace (TEMPORAL_NAMESPACE), or have an admin remove it and run `hotel-booking setup`',
    );
  }
  return fail(seen.join('; '), `${stall}. ${fixes.join('. ')}`);
}

/** `retention`: closed runs are kept long enough for the contract's one booking per order. */
export function retentionVerdict(
  target: CommandTarget,
  retentionSeconds: number | undefined,
): CheckResult {
  const { ok, warn, fail } = resultsOf('retention');
  const set = retentionCommands(target, MIN_RETENTION_DAYS);
  if (retentionSeconds === undefined || retentionSeconds <= 0) {
    return warn(
      'the namespace reports no retention period',
      `check it is at least ${MIN_RETENTION_DAYS} days: ${set[0]}`,
    );
  }
  const days = retentionSeconds / DAY_S;
  const shown = Number.isInteger(days)
    ? `${days} day${days === 1 ? '' : 's'}`
    : `${(retentionSeconds / 3600).toFixed(1)} h`;
  const what = `retention is ${shown}; the contract needs at least ${MIN_RETENTION_DAYS} days (a confirmed order is remembered until check-out plus retention, docs/contract.md)`;
  if (days >= MIN_RETENTION_DAYS) return ok(what);
  return fail(
    what,
    `a start of an order id whose runs closed more than ${shown} ago books again as a new order. Set it: ${set.join(' ; ')}`,
  );
}

/** The runs of earlier versions still open: what they keep (docs/earlier-versions.md). Never a failure. */
export function earlierVersionsVerdict(
  facts: readonly { readonly id: string; readonly open: number }[],
): CheckResult {
  const counts = facts.map((f) => `${f.id}: ${f.open}`).join(', ');
  const open = facts.reduce((sum, f) => sum + f.open, 0);
  return ok(
    'earlier-versions',
    open === 0
      ? `no run of an earlier version is open (${counts}): the code kept for them may go once the retention has passed (docs/earlier-versions.md)`
      : `${open} run(s) of earlier versions still open (${counts}): the code kept for them stays (docs/earlier-versions.md)`,
  );
}
