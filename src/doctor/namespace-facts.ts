/** What `doctor namespace` reads from Temporal (reads only), as the facts its verdicts take. */
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

/** Reads one namespace for the facts the verdicts take. */
export class NamespaceReader {
  constructor(
    readonly connection: Connection,
    readonly namespace: string,
  ) {}

  #within<T>(call: (service: Connection['workflowService']) => Promise<T>): Promise<T> {
    const { connection } = this;
    return connection.withDeadline(Date.now() + CALL_TIMEOUT_MS, () =>
      call(connection.workflowService),
    );
  }

  /** The server's version as it reports it (GetSystemInfo), e.g. `1.32.2`. */
  async serverVersion(): Promise<string> {
    return (await this.#within((s) => s.getSystemInfo({}))).serverVersion ?? '';
  }

  /** The namespace's state and retention, or its refusal. Other failures reject. */
  async describe(): Promise<NamespaceFacts> {
    const { namespace } = this;
    try {
      const d = await this.#within((s) => s.describeNamespace({ namespace }));
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

  /** The search attributes as listed; where listing is refused, which queries accept. */
  async searchAttributes(): Promise<SearchAttributeFacts> {
    const { connection, namespace } = this;
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
  async pollers(taskQueue: string): Promise<{ workflow: Poller[]; activity: Poller[] }> {
    const of = async (taskQueueType: number) => {
      const query = { namespace: this.namespace, taskQueue: { name: taskQueue }, taskQueueType };
      const described = await this.#within((s) => s.describeTaskQueue(query));
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

  /** The first input payload of `taskQueue`'s latest workflows, and what `codec` makes of it. */
  async recentPayload(taskQueue: string, codec: EncryptionCodec): Promise<PayloadFacts> {
    const { namespace } = this;
    // Visibility lists the most recent first (by close time, then start time).
    const query = recentWorkflowsQuery(taskQueue);
    const listed = await this.#within((s) =>
      s.listWorkflowExecutions({ namespace, pageSize: RECENT_WORKFLOWS, query }),
    );
    for (const { execution } of (listed.executions ?? []).slice(0, RECENT_WORKFLOWS)) {
      const workflowId = execution?.workflowId ?? '?';
      const history = await this.#within((s) =>
        s.getWorkflowExecutionHistory({ namespace, execution, maximumPageSize: 1 }),
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

  /** Open runs of earlier versions per entry of src/shared/compatibility.ts countable now. */
  async earlierVersions(): Promise<{ readonly id: string; readonly open: number }[]> {
    const { connection, namespace } = this;
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
}
