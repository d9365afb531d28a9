/**
 * Prepares a namespace for the product over the process's own connection: creates it when asked
 * and missing, registers the search attributes it lacks, and waits until queries accept them.
 * Idempotent; it never changes an attribute registered with another type, and reports a refusal
 * (no permission) for the caller to print what a person with the right runs (operator-commands.ts).
 */
import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { SearchAttributeConflict, SearchAttributeSpec } from './search-attribute-plan';
import {
  indexedValueTypeName,
  planSearchAttributes,
  PRODUCT_SEARCH_ATTRIBUTES,
} from './search-attribute-plan';

/** One operator or visibility call's deadline. @default 10 s */
export const CALL_TIMEOUT_MS = 10_000;

/**
 * How long registered attributes may take to be accepted by queries: the server's cache of them
 * refreshes every 60 s in production. @default 120 s
 */
export const USABLE_TIMEOUT_MS = 120_000;

const { IndexedValueType } = temporal.api.enums.v1;

/** The gRPC status names a refusal of the namespace's settings comes as. */
const REFUSAL_CODES = new Map([
  [5, 'NOT_FOUND'],
  [7, 'PERMISSION_DENIED'],
  [12, 'UNIMPLEMENTED'],
  [16, 'UNAUTHENTICATED'],
] as const);
export type RefusalCode = 'NOT_FOUND' | 'PERMISSION_DENIED' | 'UNIMPLEMENTED' | 'UNAUTHENTICATED';

/** The server answered with a refusal: its status and what it said. */
export interface Refusal {
  readonly code: RefusalCode;
  readonly details: string;
}

/** The refusal `err` is, or undefined when it is some other failure (unreachable, a bug). */
export function refusalOf(err: unknown): Refusal | undefined {
  if (!isGrpcServiceError(err)) return undefined;
  const code = REFUSAL_CODES.get(err.code as 5 | 7 | 12 | 16);
  return code === undefined ? undefined : { code, details: err.details || err.message };
}

/** A call under {@link CALL_TIMEOUT_MS}. */
function timed<T>(connection: Connection, fn: () => Promise<T>): Promise<T> {
  return connection.withDeadline(Date.now() + CALL_TIMEOUT_MS, fn);
}

/** The namespace's custom search attributes, name → type as the SDK names it (`KEYWORD` …). */
export async function readSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<Record<string, string>> {
  const listed = await timed(connection, () =>
    connection.operatorService.listSearchAttributes({ namespace }),
  );
  return Object.fromEntries(
    Object.entries(listed.customAttributes ?? {}).map(([name, value]) => [
      name,
      indexedValueTypeName(IndexedValueType[value], value),
    ]),
  );
}

/** Registers `specs` on the namespace (the server skips names it already has). */
export async function registerSearchAttributes(
  connection: Connection,
  namespace: string,
  specs: readonly SearchAttributeSpec[],
): Promise<void> {
  await timed(connection, () =>
    connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        specs.map((s) => [s.name, IndexedValueType[`INDEXED_VALUE_TYPE_${s.type}`]]),
      ),
    }),
  );
}

/** Whether the namespace accepts `query`: false when it names an unknown attribute. */
async function accepts(connection: Connection, namespace: string, query: string): Promise<boolean> {
  try {
    await timed(connection, () =>
      connection.workflowService.countWorkflowExecutions({ namespace, query }),
    );
    return true;
  } catch (err) {
    // An unknown attribute is an invalid argument; anything else is not an answer about it.
    if (!isGrpcServiceError(err) || err.code !== 3) throw err;
    return false;
  }
}

/**
 * Whether each of `names` is accepted in a visibility query of the namespace (`Name IS NOT NULL`):
 * what a registered attribute must be before a workflow writes it. Resolves to the names refused.
 */
export async function refusedInQueries(
  connection: Connection,
  namespace: string,
  names: readonly string[],
): Promise<string[]> {
  const refused: string[] = [];
  for (const name of names) {
    if (!(await accepts(connection, namespace, `${name} IS NOT NULL`))) refused.push(name);
  }
  return refused;
}

/** Waits until one query naming every one of `names` is accepted; the ms it took, or undefined. */
async function waitUntilQueryable(
  connection: Connection,
  namespace: string,
  names: readonly string[],
  timeoutMs: number,
): Promise<number | undefined> {
  const started = Date.now();
  const query = names.map((n) => `${n} IS NOT NULL`).join(' AND ');
  while (!(await accepts(connection, namespace, query))) {
    if (Date.now() - started > timeoutMs) return undefined;
    await new Promise((r) => setTimeout(r, 500));
  }
  return Date.now() - started;
}

/** What {@link prepareNamespace} did, or why it stopped (nothing was changed unless `prepared`). */
export type PrepareOutcome =
  | {
      readonly kind: 'prepared';
      readonly created: readonly SearchAttributeSpec[];
      readonly present: readonly SearchAttributeSpec[];
      /** How long until queries accepted the created ones (0 when none was created). */
      readonly usableAfterMs: number;
      /** The namespace was created by this run, with this retention. */
      readonly namespaceCreated?: { readonly retentionDays: number };
    }
  /** Attributes registered under another type: nothing was changed. */
  | { readonly kind: 'conflict'; readonly conflicts: readonly SearchAttributeConflict[] }
  /** The namespace does not exist (and was not to be created, or creating it was refused). */
  | { readonly kind: 'no-namespace'; readonly details: string; readonly refusal?: Refusal }
  /** The server refused to list or register them: `toRegister` is what a person must add. */
  | {
      readonly kind: 'refused';
      readonly step: 'list' | 'register';
      readonly refusal: Refusal;
      readonly toRegister: readonly SearchAttributeSpec[];
    }
  /** Registered, but queries did not accept them in time. */
  | {
      readonly kind: 'not-usable';
      readonly created: readonly SearchAttributeSpec[];
      readonly timeoutMs: number;
    };

export interface PrepareOptions {
  /** Create the namespace with this retention when it does not exist. @default do not create */
  readonly createWithRetentionDays?: number;
}

/**
 * Registers the namespace with `retentionDays` of retention, then waits until this connection's
 * frontend knows it (its namespace cache refreshes on an interval). The refusal, if refused.
 */
async function createNamespace(
  connection: Connection,
  namespace: string,
  retentionDays: number,
  timeoutMs: number,
): Promise<Refusal | undefined> {
  try {
    await timed(connection, () =>
      connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(retentionDays * 86_400_000),
      }),
    );
  } catch (err) {
    // Created by someone else in between: as good.
    if (!(isGrpcServiceError(err) && err.code === 6)) {
      const refusal = refusalOf(err);
      if (refusal === undefined) throw err;
      return refusal;
    }
  }
  const started = Date.now();
  for (;;) {
    try {
      await readSearchAttributes(connection, namespace);
      return undefined;
    } catch (err) {
      if (refusalOf(err)?.code !== 'NOT_FOUND' || Date.now() - started > timeoutMs) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Registers the product's search attributes the namespace lacks; see the file's comment. */
export async function prepareNamespace(
  connection: Connection,
  namespace: string,
  options: PrepareOptions = {},
): Promise<PrepareOutcome> {
  let existing: Record<string, string>;
  let namespaceCreated: { retentionDays: number } | undefined;
  try {
    existing = await readSearchAttributes(connection, namespace);
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal === undefined) throw err;
    if (refusal.code !== 'NOT_FOUND') {
      return { kind: 'refused', step: 'list', refusal, toRegister: PRODUCT_SEARCH_ATTRIBUTES };
    }
    const days = options.createWithRetentionDays;
    if (days === undefined) return { kind: 'no-namespace', details: refusal.details };
    const refused = await createNamespace(connection, namespace, days, 60_000);
    if (refused) return { kind: 'no-namespace', details: refusal.details, refusal: refused };
    namespaceCreated = { retentionDays: days };
    existing = await readSearchAttributes(connection, namespace);
  }
  const made = namespaceCreated ? { namespaceCreated } : {};
  const plan = planSearchAttributes(existing);
  if (plan.conflicts.length > 0) return { kind: 'conflict', conflicts: plan.conflicts };
  if (plan.missing.length === 0) {
    return { kind: 'prepared', created: [], present: plan.present, usableAfterMs: 0, ...made };
  }
  try {
    await registerSearchAttributes(connection, namespace, plan.missing);
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal === undefined) throw err;
    if (refusal.code === 'NOT_FOUND') return { kind: 'no-namespace', details: refusal.details };
    return { kind: 'refused', step: 'register', refusal, toRegister: plan.missing };
  }
  // The server skips a name it already has, whatever its type: read back what was registered
  // (another party may have registered one of these names in between).
  const after = planSearchAttributes(await readSearchAttributes(connection, namespace));
  if (after.conflicts.length > 0) return { kind: 'conflict', conflicts: after.conflicts };
  const names = plan.missing.map((s) => s.name);
  const usableAfterMs = await waitUntilQueryable(connection, namespace, names, USABLE_TIMEOUT_MS);
  if (usableAfterMs === undefined) {
    return { kind: 'not-usable', created: plan.missing, timeoutMs: USABLE_TIMEOUT_MS };
  }
  return { kind: 'prepared', created: plan.missing, present: plan.present, usableAfterMs, ...made };
}
