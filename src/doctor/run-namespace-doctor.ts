/**
 * `hotel-booking doctor namespace`: a read-only check of the configured Temporal namespace before
 * go-live (docs/doctor.md), with the configuration the workers run with: the connection with
 * its security, the server's release, the namespace, its search attributes and retention, workers polling the booking
 * and order-events task queues, the payload keys against the most recent booking's input, the
 * runs of earlier versions still open, the codec server. Runs the checks in order and returns one report (the same shape and exit codes
 * as the supplier's doctor, run-doctor.ts); the CLI renders it. Nothing is written to Temporal.
 */
import type { Connection } from '@temporalio/client';
import { EncryptionCodec } from '../codec';
import { describeTemporalSecurity } from '../client/connection-options';
import type { Config } from '../config';
import { orderEventsTaskQueue } from '../order-events/contract/delivery';
import type { CheckName, CheckResult, DoctorExit, Skipped, Stop } from './check-result';
import { doctorExitCode, fail, NAMESPACE_CHECKS } from './check-result';
import { codecServerCheck } from './codec-server-check';
import {
  connectFacts,
  earlierVersionFacts,
  namespaceFacts,
  pollerFacts,
  serverVersionFacts,
  recentPayloadFacts,
  searchAttributeFacts,
} from './namespace-facts';
import {
  earlierVersionsVerdict,
  namespaceVerdict,
  retentionVerdict,
  searchAttributesVerdict,
  temporalConnectionVerdict,
  temporalReleaseVerdict,
} from './namespace-verdicts';
import { payloadKeysVerdict } from './payload-verdicts';
import { pollersVerdict } from './poller-verdicts';

/** What the namespace doctor reads of the configuration: what the workers run with. */
export type NamespaceDoctorConfig = Pick<
  Config,
  'temporal' | 'encryption' | 'orderEvents' | 'codecServer'
>;

export interface NamespaceDoctorReport {
  /** TEMPORAL_ADDRESS. */
  readonly temporal: string;
  readonly namespace: string;
  /** TEMPORAL_TASK_QUEUE, the booking task queue. */
  readonly taskQueue: string;
  readonly checks: readonly CheckResult[];
  readonly skipped: readonly Skipped[];
  readonly stop?: Stop;
  readonly exitCode: DoctorExit;
}

/** A check whose call failed unexpectedly fails, saying so; the others still run. */
async function guarded(name: CheckName, run: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await run();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return fail(name, `could not be checked: ${why.slice(0, 200)}`, 'unknown: run it again');
  }
}

interface Progress {
  readonly checks: CheckResult[];
  readonly skipped: Skipped[];
}

/** Every check from `name` on (but the codec server's, which needs no namespace) did not run. */
function skipFrom(p: Progress, name: (typeof NAMESPACE_CHECKS)[number], reason: string): void {
  for (const n of NAMESPACE_CHECKS.slice(NAMESPACE_CHECKS.indexOf(name))) {
    if (n !== 'codec-server') p.skipped.push({ name: n, reason });
  }
}

/** The checks of the namespace's contents; a stop when the namespace refused this identity. */
async function namespaceChecks(
  connection: Connection,
  config: NamespaceDoctorConfig,
  codec: EncryptionCodec,
  p: Progress,
): Promise<Stop | undefined> {
  const { address, namespace, taskQueue } = config.temporal;
  const target = { address, namespace };
  let described;
  try {
    described = await namespaceFacts(connection, namespace);
  } catch (err) {
    p.checks.push(await guarded('namespace', () => Promise.reject(err)));
    skipFrom(p, 'search-attributes', `namespace '${namespace}' could not be described`);
    return undefined;
  }
  const ns = namespaceVerdict(target, described);
  p.checks.push(ns.result);
  if (described.kind !== 'found') {
    skipFrom(p, 'search-attributes', `namespace '${namespace}' is not usable`);
    return ns.stop;
  }
  p.checks.push(
    await guarded('search-attributes', async () =>
      searchAttributesVerdict(target, await searchAttributeFacts(connection, namespace)),
    ),
    retentionVerdict(target, described.retentionSeconds),
  );
  const queues = [
    { name: 'booking-workers', queue: taskQueue, required: { yes: true, why: '' } },
    {
      name: 'order-events-workers',
      queue: orderEventsTaskQueue(taskQueue),
      required:
        config.orderEvents === undefined
          ? { yes: false, why: 'order events are off here (ORDER_EVENTS_URL unset)' }
          : { yes: true, why: '' },
    },
  ] as const;
  for (const q of queues) {
    p.checks.push(
      await guarded(q.name, async () => {
        const seen = await pollerFacts(connection, namespace, q.queue);
        const facts = { taskQueue: q.queue, bookingTaskQueue: taskQueue, namespace };
        return pollersVerdict(q.name, { ...facts, ...seen, nowMs: Date.now() }, q.required);
      }),
    );
  }
  p.checks.push(
    await guarded('payload-keys', async () =>
      payloadKeysVerdict({
        taskQueue,
        keyIds: codec.keyIds,
        development: config.encryption.development,
        facts: await recentPayloadFacts(connection, namespace, taskQueue, codec),
      }),
    ),
    await guarded('earlier-versions', async () =>
      earlierVersionsVerdict(await earlierVersionFacts(connection, namespace)),
    ),
  );
  return undefined;
}

/** Runs every check against the namespace `config` points at. */
export async function runNamespaceDoctor(
  config: NamespaceDoctorConfig,
): Promise<NamespaceDoctorReport> {
  const t = config.temporal;
  const codec = new EncryptionCodec(config.encryption);
  const p: Progress = { checks: [], skipped: [] };
  const { connection, facts } = await connectFacts(t);
  const reached = temporalConnectionVerdict({
    address: t.address,
    security: describeTemporalSecurity(t),
    tls: t.tls !== undefined,
    facts,
  });
  p.checks.push(reached.result);
  let stop = reached.stop;
  if (connection === undefined) {
    skipFrom(p, 'temporal-release', 'Temporal was not reached');
  } else {
    try {
      p.checks.push(
        await guarded('temporal-release', async () =>
          temporalReleaseVerdict({
            address: t.address,
            serverVersion: await serverVersionFacts(connection),
          }),
        ),
      );
      stop = await namespaceChecks(connection, config, codec, p);
    } finally {
      await connection.close();
    }
  }
  // The codec server needs no namespace: it is checked whatever came before.
  p.checks.push(await guarded('codec-server', () => codecServerCheck(config.codecServer, codec)));
  return {
    temporal: t.address,
    namespace: t.namespace,
    taskQueue: t.taskQueue,
    checks: p.checks,
    skipped: p.skipped,
    ...(stop === undefined ? {} : { stop }),
    exitCode: doctorExitCode({ checks: p.checks, stop }),
  };
}
