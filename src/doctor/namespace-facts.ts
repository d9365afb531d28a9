/**
 * What `doctor namespace` reads from Temporal, as the facts its verdicts take. Reads only; every
 * call has a deadline.
 */
import { Connection } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { probeTcp } from './tcp-probe';
import { type EncryptionCodec, isEncrypted, METADATA_KEY_ID, PayloadCodecError } from '../codec';
import {
  temporalConnectionFailure,
  temporalConnectionOptions,
  type TemporalSecurity,
} from '../client/connection-options';
import { temporalNotAnswering } from '../client/temporal-not-answering';
import { readSearchAttributes, refusalOf, refusedInQueries } from '../namespace/prepare-namespace';
import { PRODUCT_SEARCH_ATTRIBUTES } from '../namespace/search-attribute-plan';
import { countableNow } from '../shared/compatibility';
import { inEveryDivision } from '../shared/search-attributes';
import type { ConnectionFacts, NamespaceFacts, SearchAttributeFacts } from './namespace-verdicts';
import type { PayloadFacts } from './payload-verdicts';
import type { Poller } from './poller-verdicts';

/** A connection attempt's and each call's deadline, ms. */
export const CALL_TIMEOUT_MS = 10_000;
/** Recent workflows looked at for one with an input payload. */
const RECENT_WORKFLOWS = 5;

const { TaskQueueType, NamespaceState } = temporal.api.enums.v1;

const within = <T>(connection: Connection, fn: () => Promise<T>) =>
  connection.withDeadline(Date.now() + CALL_TIMEOUT_MS, fn);

/** Connects as every process of the product does; the facts say how it went. */
export async function connectFacts(
  target: { readonly address: string } & Partial<TemporalSecurity>,
): Promise<{ connection?: Connection; facts: ConnectionFacts }> {
  // A refused TCP connection answers in milliseconds; the SDK would wait out its deadline.
  const reach = await probeTcp(target.address);
  if (!reach.ok) return { facts: { kind: 'unreachable', reason: reach.reason } };
  try {
    const connection = await Connection.connect({
      ...temporalConnectionOptions(target),
      connectTimeout: CALL_TIMEOUT_MS,
    });
    return { connection, facts: { kind: 'connected' } };
  } catch (err) {
    const refused = await temporalConnectionFailure(err, target);
    if (refused !== undefined) return { facts: { kind: 'refused', line: refused } };
    const reason = temporalNotAnswering(err) ?? (err instanceof Error ? err.message : String(err));
    return { facts: { kind: 'unreachable', reason } };
  }
}

/** The task queue's workflows, every division: the doctor reads the most recent's input. */
export function recentWorkflowsQuery(taskQueue: string): string {
  return inEveryDivision(`TaskQueue = '${taskQueue.replaceAll("'", "\\'")}'`);
}

/** The server's version as it reports it (GetSystemInfo), e.g. `1.32.2`. */
export async function serverVersionFacts(connection: Connection): Promise<string> {
  const info = await within(connection, () => connection.workflowService.getSystemInfo({}));
  return info.serverVersion ?? '';
}

/** The namespace's state and retention, or its refusal. Other failures reject. */
export async function namespaceFacts(
  connection: Connection,
  namespace: string,
): Promise<NamespaceFacts> {
  try {
    const d = await within(connection, () =>
      connection.workflowService.describeNamespace({ namespace }),
    );
    const ttl = d.config?.workflowExecutionRetentionTtl;
    const state = NamespaceState[d.namespaceInfo?.state ?? 0] ?? 'NAMESPACE_STATE_UNSPECIFIED';
    return {
      kind: 'found',
      state: state.replace(/^NAMESPACE_STATE_/, ''),
      retentionSeconds: ttl ? Number(ttl.seconds ?? 0) : undefined,
    };
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal === undefined) throw err;
    return refusal.code === 'NOT_FOUND'
      ? { kind: 'not-found', details: refusal.details }
      : { kind: 'refused', code: refusal.code, details: refusal.details };
  }
}

/** The namespace's search attributes as listed; where listing is refused, which queries accept. */
export async function searchAttributeFacts(
  connection: Connection,
  namespace: string,
): Promise<SearchAttributeFacts> {
  try {
    return { kind: 'listed', existing: await readSearchAttributes(connection, namespace) };
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal === undefined || refusal.code === 'NOT_FOUND') throw err;
    const names = PRODUCT_SEARCH_ATTRIBUTES.map((s) => s.name);
    return {
      kind: 'queried',
      listRefusal: `${refusal.code}: ${refusal.details}`,
      refused: await refusedInQueries(connection, namespace, names),
    };
  }
}

/** The pollers the server has seen recently on `taskQueue`, of workflow and activity tasks. */
export async function pollerFacts(
  connection: Connection,
  namespace: string,
  taskQueue: string,
): Promise<{ workflow: Poller[]; activity: Poller[] }> {
  const of = async (taskQueueType: number) => {
    const described = await within(connection, () =>
      connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue },
        taskQueueType,
      }),
    );
    return (described.pollers ?? []).map((p): Poller => ({
      identity: p.identity ?? '?',
      lastAccessMs: optionalTsToMs(p.lastAccessTime),
    }));
  };
  return {
    workflow: await of(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
    activity: await of(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
  };
}

/** The first input payload of `taskQueue`'s most recent workflows, and what `codec` makes of it. */
export async function recentPayloadFacts(
  connection: Connection,
  namespace: string,
  taskQueue: string,
  codec: EncryptionCodec,
): Promise<PayloadFacts> {
  // Visibility lists the most recent first (by close time, then start time).
  const listed = await within(connection, () =>
    connection.workflowService.listWorkflowExecutions({
      namespace,
      pageSize: RECENT_WORKFLOWS,
      query: recentWorkflowsQuery(taskQueue),
    }),
  );
  for (const { execution } of (listed.executions ?? []).slice(0, RECENT_WORKFLOWS)) {
    const workflowId = execution?.workflowId ?? '?';
    const history = await within(connection, () =>
      connection.workflowService.getWorkflowExecutionHistory({
        namespace,
        execution,
        maximumPageSize: 1,
      }),
    );
    const started = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    const payload = started?.input?.payloads?.[0];
    if (payload === undefined) continue;
    if (!isEncrypted(payload)) return { kind: 'clear', workflowId };
    const id = payload.metadata?.[METADATA_KEY_ID];
    const keyId = id ? Buffer.from(id).toString('utf8') : undefined;
    try {
      await codec.decode([payload]);
      return { kind: 'decoded', workflowId, keyId: keyId ?? '?' };
    } catch (err) {
      if (!(err instanceof PayloadCodecError)) throw err;
      const kind =
        err.code === 'CODEC_UNKNOWN_KEY_ID'
          ? 'unknown-key'
          : err.code === 'CODEC_DECRYPT_FAILED'
            ? 'decrypt-failed'
            : 'malformed';
      return { kind, workflowId, keyId };
    }
  }
  return { kind: 'none' };
}

/** Open runs of earlier versions per registry entry (src/shared/compatibility.ts) countable now. */
export async function earlierVersionFacts(
  connection: Connection,
  namespace: string,
): Promise<{ readonly id: string; readonly open: number }[]> {
  return Promise.all(
    countableNow().map(async (e) => {
      const counted = await connection.workflowService.countWorkflowExecutions({
        namespace,
        query: inEveryDivision(e.deleteWhen!),
      });
      return { id: e.id, open: Number(counted.count ?? 0) };
    }),
  );
}
