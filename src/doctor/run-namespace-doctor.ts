/** `doctor namespace` (docs/doctor.md): NAMESPACE_CHECKS in order, as the workers are set up. */
import { EncryptionCodec } from '../codec';
import { describeTemporalSecurity } from '../client/connection-options';
import type { Config } from '../config';
import { orderEventsTaskQueue } from '../order-events/contract/delivery';
import type { CheckName, CheckResult, DoctorExit, Skipped, Stop } from './check-result';
import { doctorExitCode, fail, NAMESPACE_CHECKS } from './check-result';
import { codecServerCheck } from './codec-server-check';
import { connectFacts, NamespaceReader } from './namespace-facts';
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

class Progress {
  readonly checks: CheckResult[] = [];
  readonly skipped: Skipped[] = [];

  /** A check whose call failed unexpectedly fails, saying so; the others still run. */
  async check(name: CheckName, run: () => Promise<CheckResult>): Promise<void> {
    try {
      this.checks.push(await run());
    } catch (err) {
      const why = (err instanceof Error ? err.message : String(err)).slice(0, 200);
      this.checks.push(fail(name, `could not be checked: ${why}`, 'unknown: run it again'));
    }
  }

  /** Every check from `name` on (but the codec server's, which needs no namespace) did not run. */
  skipFrom(name: (typeof NAMESPACE_CHECKS)[number], reason: string): void {
    for (const n of NAMESPACE_CHECKS.slice(NAMESPACE_CHECKS.indexOf(name))) {
      if (n !== 'codec-server') this.skipped.push({ name: n, reason });
    }
  }
}

/** The checks of the namespace's contents; a stop when the namespace refused this identity. */
async function namespaceChecks(
  read: NamespaceReader,
  config: NamespaceDoctorConfig,
  codec: EncryptionCodec,
  p: Progress,
): Promise<Stop | undefined> {
  const { address, namespace, taskQueue } = config.temporal;
  const target = { address, namespace };
  let described;
  try {
    described = await read.describe();
  } catch (err) {
    await p.check('namespace', () => Promise.reject(err));
    p.skipFrom('search-attributes', `namespace '${namespace}' could not be described`);
    return undefined;
  }
  const ns = namespaceVerdict(target, described);
  p.checks.push(ns.result);
  if (described.kind !== 'found') {
    p.skipFrom('search-attributes', `namespace '${namespace}' is not usable`);
    return ns.stop;
  }
  await p.check('search-attributes', async () =>
    searchAttributesVerdict(target, await read.searchAttributes()),
  );
  p.checks.push(retentionVerdict(target, described.retentionSeconds));
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
    await p.check(q.name, async () => {
      const seen = await read.pollers(q.queue);
      const facts = { taskQueue: q.queue, bookingTaskQueue: taskQueue, namespace };
      return pollersVerdict(q.name, { ...facts, ...seen, nowMs: Date.now() }, q.required);
    });
  }
  await p.check('payload-keys', async () =>
    payloadKeysVerdict({
      taskQueue,
      keyIds: codec.keyIds,
      development: config.encryption.development,
      facts: await read.recentPayload(taskQueue, codec),
    }),
  );
  await p.check('earlier-versions', async () =>
    earlierVersionsVerdict(await read.earlierVersions()),
  );
  return undefined;
}

export async function runNamespaceDoctor(
  config: NamespaceDoctorConfig,
): Promise<NamespaceDoctorReport> {
  const t = config.temporal;
  const codec = new EncryptionCodec(config.encryption);
  const p = new Progress();
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
    p.skipFrom('temporal-release', 'Temporal was not reached');
  } else {
    const read = new NamespaceReader(connection, t.namespace);
    try {
      await p.check('temporal-release', async () =>
        temporalReleaseVerdict({ address: t.address, serverVersion: await read.serverVersion() }),
      );
      stop = await namespaceChecks(read, config, codec, p);
    } finally {
      await connection.close();
    }
  }
  // The codec server needs no namespace: it is checked whatever came before.
  await p.check('codec-server', () => codecServerCheck(config.codecServer, codec));
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
