/**
 * The node drill (`npm run chaos -- nodes`): the cluster of `npm run cluster -- --nodes 3` (three
 * Temporal server nodes on one PostgreSQL behind a balancer, mTLS end to end) with three worker
 * processes; bookings across every scenario, and while they run: SIGKILL one server node, start it
 * again after `downMs`; later SIGKILL another, start it again after `downMs`; once, restart
 * PostgreSQL. Reports, beside the audit every drill has (duplicated, lost, stuck, each outcome and
 * reconciliation explained): after each disruption how long until bookings flowed again (every
 * probed order answers a query, through the balancer, the frontends, the history shards, the
 * matching partitions and the workers), that the dead node's shards moved (each node's own
 * `numshards_gauge`), and every workflow task timeout with the disruption that caused it.
 */
import { bookingWorkflowId } from '../../src/shared/booking-contract';
import { simulatorOf, type ClusterStack } from '../stack/cluster-stack';
import { formatCounts, startWithRetry, waitForSettled } from './audit';
import { SCENARIO_MIX, mixInput, orderIdFor, pick, prng, type MixEntry } from './booking-mix';
import type { KillRecord } from './crash-drill';
import { startDrillCluster } from './drill-cluster';
import {
  judgeDrill,
  reconciliationLine,
  workflowTaskTimeouts,
  type DrillVerdict,
} from './drill-verdict';
import {
  explainTaskTimeouts,
  failedProbes,
  flowAgainMs,
  type ProbeRound,
  type TaskTimeout,
} from './node-drill-figures';

export interface NodeDrillOptions {
  /** @default 300 */
  readonly bookings?: number;
  /** @default 3 */
  readonly workers?: number;
  /** Server nodes. @default 3 */
  readonly nodes?: number;
  /** How long a killed node stays down. @default 60000 */
  readonly downMs?: number;
  /** Starts spread over this window; it is at least long enough for the disruptions. */
  readonly startWindowMs?: number;
  /** @default 300000 */
  readonly settleTimeoutMs?: number;
  readonly dataDir: string;
  /** @default 27633 (apart from `npm run cluster`, the suite's cluster and the fleet drill) */
  readonly basePort?: number;
  readonly seed?: number;
  readonly log?: (line: string) => void;
}

/** One node's death and return, as the drill saw it. */
export interface NodeKill {
  readonly node: number;
  readonly pid: number | undefined;
  /** ms since the drill started. */
  readonly atMs: number;
  /** History shards by node just before the kill. */
  readonly shardsBefore: Record<number, number>;
  /** When the surviving nodes owned every shard, ms after the kill (undefined: never, in downMs). */
  readonly shardsMovedMs: number | undefined;
  readonly shardsAfter: Record<number, number>;
  /** Until every probed order answered again, ms after the kill. */
  readonly flowAgainMs: number | undefined;
  /** Probe queries that failed while it was down. */
  readonly failedProbes: number;
  /** From its new start until it answered, and the shards it owned 20 s after. */
  readonly restartMs: number;
  readonly shardsAfterReturn: Record<number, number>;
}

export interface NodeDrillReport extends Omit<DrillVerdict, 'clean'> {
  readonly bookings: number;
  readonly workers: number;
  readonly nodes: number;
  readonly shards: number;
  readonly durationMs: number;
  /** When the drill's clock started (ms since the epoch): event times are shown from it. */
  readonly startedAt: number;
  readonly kills: NodeKill[];
  readonly postgres: { atMs: number; restartMs: number; flowAgainMs: number | undefined };
  readonly startAttempts: number;
  readonly probes: { rounds: number; failed: number };
  readonly taskTimeouts: { timeout: TaskTimeout; cause: string | undefined }[];
  readonly settleMs: number;
  readonly passed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sum = (byNode: Record<number, number>) => Object.values(byNode).reduce((a, b) => a + b, 0);

/** Every `everyMs`, queries up to `size` running orders (3 s each) and records how many answered. */
export function startProbes(
  stack: ClusterStack,
  started: () => string[],
  everyMs = 1_000,
  size = 6,
) {
  const rounds: ProbeRound[] = [];
  let stopped = false;
  let i = 0;
  const loop = (async () => {
    while (!stopped) {
      const ids = started();
      const chosen = Array.from(
        { length: Math.min(size, ids.length) },
        () => ids[i++ % ids.length]!,
      );
      const at = Date.now();
      const answers = await Promise.all(
        chosen.map((id) =>
          stack.connection
            .withDeadline(Date.now() + 3_000, () =>
              stack.client.workflow.getHandle(bookingWorkflowId(id)).query('bookingState'),
            )
            .then(
              () => true,
              // A closed order cannot answer a query on its worker any more: not a failure.
              (err: unknown) => /closed|completed|not found/i.test(String(err)),
            ),
        ),
      );
      rounds.push({ at, ok: answers.filter(Boolean).length, total: chosen.length });
      await sleep(Math.max(0, everyMs - (Date.now() - at)));
    }
  })();
  return {
    rounds,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

export async function runNodeDrill(options: NodeDrillOptions): Promise<NodeDrillReport> {
  const log = options.log ?? (() => undefined);
  const n = options.bookings ?? 300;
  const workerCount = options.workers ?? 3;
  const nodeCount = options.nodes ?? 3;
  const downMs = options.downMs ?? 60_000;
  // Two kills with their downtime, the PostgreSQL restart, and room around them.
  const window = Math.max(options.startWindowMs ?? 0, 2 * downMs + 90_000);
  const random = prng(options.seed ?? Date.now());
  const drill = await startDrillCluster({
    kind: 'nodes',
    workers: workerCount,
    nodes: nodeCount,
    basePort: options.basePort ?? 27_633,
    dataDir: options.dataDir,
    seed: options.seed,
    log,
  });
  const { stack, run } = drill;
  const t0 = Date.now();
  const { infra } = stack;
  try {
    log(
      `cluster up: ${nodeCount} nodes (pids ${infra.pids().nodes.join(', ')}) behind ${infra.address}, ${infra.shards} shards, ${workerCount} workers on '${run}'`,
    );
    const orders = Array.from({ length: n }, (_, i) => ({
      orderId: orderIdFor(run, i),
      entry: pick(SCENARIO_MIX, random),
    }));
    const entryOf = new Map(orders.map((o) => [o.orderId, o.entry]));
    const startedIds: string[] = [];
    const probes = startProbes(stack, () => startedIds);

    // --- disruptions, beside the starts ------------------------------------------------------------
    const disruptions: KillRecord[] = [];
    const kills: NodeKill[] = [];
    let postgres: NodeDrillReport['postgres'] | undefined;
    const disrupter = (async () => {
      const first = 1 + Math.floor(random() * nodeCount);
      const second = 1 + ((first - 1 + 1 + Math.floor(random() * (nodeCount - 1))) % nodeCount);
      await sleep(20_000);
      for (const node of [first, second]) {
        const outage = await nodeOutage(infra, node, { downMs, t0, log });
        disruptions.push(...outage.records);
        kills.push(outage.kill);
        await sleep(5_000);
      }
      const restart = await postgresRestart(infra, t0, log);
      disruptions.push(restart.record);
      postgres = restart.postgres;
    })();
    const { startAttempts, startFailures } = await startOrders(stack, orders, window, startedIds);
    if (startFailures > 0) log(`${startFailures} starts failed for good`);
    await disrupter;
    const lastDisruptionEnd = Date.now();
    log(`all ${n} started (${startAttempts} attempts); 2 node kills and a PostgreSQL restart done`);

    // --- settle, then the figures -----------------------------------------------------------------
    const ids = orders.map((o) => o.orderId);
    const statuses = await waitForSettled(stack.client, ids, {
      timeoutMs: options.settleTimeoutMs ?? 300_000,
      log,
    });
    const settleMs = Date.now() - lastDisruptionEnd;
    await sleep(5_000);
    await probes.stop();
    const rounds = probes.rounds;
    const { measured, pg } = recovery(rounds, kills, postgres, { t0, downMs });
    const { clean, ...verdict } = await judgeDrill({
      client: stack.client,
      bookings: stack.bookings,
      simulator: simulatorOf(stack),
      ids,
      statuses,
      entryOf,
      disruptions,
      reconcile: true,
    });
    const taskTimeouts = await explainedTaskTimeouts(stack, ids, disruptions);
    const everyKillRecovered = measured.every(
      (k) => k.shardsMovedMs !== undefined && k.flowAgainMs !== undefined,
    );
    return {
      bookings: n,
      workers: workerCount,
      nodes: nodeCount,
      shards: infra.shards,
      durationMs: Date.now() - t0,
      startedAt: t0,
      kills: measured,
      postgres: pg,
      startAttempts,
      probes: { rounds: rounds.length, failed: failedProbes(rounds, t0, Date.now()) },
      taskTimeouts,
      ...verdict,
      settleMs,
      passed:
        startFailures === 0 &&
        clean &&
        verdict.neverSent.length === 0 &&
        measured.length === 2 &&
        everyKillRecovered &&
        pg.flowAgainMs !== undefined &&
        taskTimeouts.every((t) => t.cause !== undefined),
    };
  } finally {
    await drill.stop();
  }
}

/**
 * SIGKILLs node `node`, watches its shards move to the others (each node's `numshards_gauge`)
 * while it stays down `downMs`, starts it again and reads the shards 20 s later.
 */
async function nodeOutage(
  infra: ClusterStack['infra'],
  node: number,
  o: { downMs: number; t0: number; log: (line: string) => void },
): Promise<{ kill: NodeKill; records: KillRecord[] }> {
  const shardsBefore = await infra.shardsByNode();
  const pid = infra.nodes[node - 1]!.pid;
  const at = Date.now();
  await infra.killNode(node, 'SIGKILL');
  o.log(
    `SIGKILL node ${node} (pid ${pid}) at +${at - o.t0} ms; shards before ${JSON.stringify(shardsBefore)}`,
  );
  let shardsMovedMs: number | undefined;
  let shardsAfter: Record<number, number> = {};
  while (Date.now() - at < o.downMs) {
    await sleep(1_000);
    shardsAfter = await infra.shardsByNode();
    const moved = sum(shardsAfter) === infra.shards && !(node in shardsAfter);
    if (shardsMovedMs === undefined && moved) {
      shardsMovedMs = Date.now() - at;
      o.log(`node ${node}'s shards moved in ${shardsMovedMs} ms: ${JSON.stringify(shardsAfter)}`);
    }
  }
  const back = Date.now();
  // Its return is a disruption too: the shards move back to it.
  await infra.startNode(node);
  const restartMs = Date.now() - back;
  await sleep(20_000);
  const shardsAfterReturn = await infra.shardsByNode();
  o.log(
    `node ${node} back (pid ${infra.nodes[node - 1]!.pid}) in ${restartMs} ms; shards 20 s later ${JSON.stringify(shardsAfterReturn)}`,
  );
  return {
    kill: {
      node,
      pid,
      atMs: at - o.t0,
      shardsBefore,
      shardsMovedMs,
      shardsAfter,
      flowAgainMs: undefined,
      failedProbes: 0,
      restartMs,
      shardsAfterReturn,
    },
    records: [
      {
        target: 'server',
        how: `node ${node} SIGKILLed`,
        at,
        atMs: at - o.t0,
        inFlight: { total: 0, booking: 0 },
        restartMs: o.downMs,
        ...(pid !== undefined ? { pid } : {}),
      },
      {
        target: 'server',
        how: `node ${node} started again (its shards moved back)`,
        at: back,
        atMs: back - o.t0,
        inFlight: { total: 0, booking: 0 },
        restartMs,
      },
    ],
  };
}

/** Restarts PostgreSQL (fast shutdown, start on the same data). */
async function postgresRestart(
  infra: ClusterStack['infra'],
  t0: number,
  log: (line: string) => void,
): Promise<{ record: KillRecord; postgres: NodeDrillReport['postgres'] }> {
  const at = Date.now();
  await infra.restartPostgres();
  const restartMs = Date.now() - at;
  log(`restarted PostgreSQL at +${at - t0} ms; accepting again after ${restartMs} ms`);
  return {
    record: {
      target: 'postgres',
      how: 'restarted',
      at,
      atMs: at - t0,
      inFlight: { total: 0, booking: 0 },
      restartMs,
    },
    postgres: { atMs: at - t0, restartMs, flowAgainMs: undefined },
  };
}

/** Starts the orders spread over `window`, retrying as an order system would. */
export async function startOrders(
  stack: ClusterStack,
  orders: readonly { orderId: string; entry: MixEntry }[],
  window: number,
  startedIds: string[],
): Promise<{ startAttempts: number; startFailures: number }> {
  let startAttempts = 0;
  const gap = window / Math.max(1, orders.length);
  const results = await Promise.allSettled(
    orders.map(async (o, i) => {
      await sleep(Math.round(i * gap));
      const r = await startWithRetry(stack.bookings, mixInput(o.entry, o.orderId), {
        timeoutMs: 180_000,
      });
      startedIds.push(o.orderId);
      startAttempts += r.attempts;
    }),
  );
  return { startAttempts, startFailures: results.filter((r) => r.status === 'rejected').length };
}

/** Every workflow task timeout of the orders, each with the disruption that explains it. */
export async function explainedTaskTimeouts(
  stack: ClusterStack,
  ids: readonly string[],
  disruptions: readonly KillRecord[],
) {
  const timeouts: TaskTimeout[] = [];
  for (const id of ids) {
    timeouts.push(...(await workflowTaskTimeouts(stack.client, id).catch(() => [])));
  }
  return explainTaskTimeouts(
    timeouts,
    disruptions.map((d) => ({
      what: `${d.target} ${d.how ?? 'SIGKILL'} at +${(d.atMs / 1000).toFixed(0)} s`,
      at: d.at,
    })),
  );
}

/** When the flow came back after each disruption, from the probe rounds (pure). */
function recovery(
  rounds: readonly ProbeRound[],
  kills: readonly NodeKill[],
  postgres: NodeDrillReport['postgres'] | undefined,
  o: { t0: number; downMs: number },
): { measured: NodeKill[]; pg: NodeDrillReport['postgres'] } {
  const measured = kills.map((k) => {
    const at = o.t0 + k.atMs;
    return {
      ...k,
      flowAgainMs: flowAgainMs(rounds, at, at + o.downMs),
      failedProbes: failedProbes(rounds, at, at + o.downMs),
    };
  });
  const pgAt = postgres ? o.t0 + postgres.atMs : 0;
  const pg = postgres
    ? { ...postgres, flowAgainMs: flowAgainMs(rounds, pgAt, pgAt + 60_000) }
    : { atMs: -1, restartMs: -1, flowAgainMs: undefined };
  return { measured, pg };
}

/** The drill's figures as lines for people. */
export function formatNodeReport(r: NodeDrillReport): string[] {
  const a = r.audit;
  const s = (ms: number | undefined) =>
    ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`;
  return [
    `node drill: ${r.bookings} bookings, ${r.nodes} server nodes (${r.shards} shards), ${r.workers} workers, ${(r.durationMs / 1000).toFixed(0)} s — ${r.passed ? 'PASSED' : 'FAILED'}`,
    ...r.kills.map(
      (k) =>
        `  node ${k.node} SIGKILLed at +${(k.atMs / 1000).toFixed(0)} s: shards ${JSON.stringify(k.shardsBefore)} → ${JSON.stringify(k.shardsAfter)} (moved in ${s(k.shardsMovedMs)}); bookings flowed again after ${s(k.flowAgainMs)} (${k.failedProbes} probe queries failed); back in ${s(k.restartMs)}, shards then ${JSON.stringify(k.shardsAfterReturn)}`,
    ),
    `  PostgreSQL restarted at +${(r.postgres.atMs / 1000).toFixed(0)} s (accepting in ${s(r.postgres.restartMs)}); bookings flowed again after ${s(r.postgres.flowAgainMs)}`,
    `  starts: ${r.startAttempts} attempts for ${r.bookings} bookings; probe rounds ${r.probes.rounds}, failed probe queries ${r.probes.failed}`,
    `  outcomes: ${formatCounts(a.outcomes)}; NEEDS_RECONCILIATION ${a.reconciliation.length}`,
    `  duplicated ${a.duplicates.length}, lost ${a.lost.length}, stuck ${a.stuck.length}, supplier bookings ${a.supplierBookings}`,
    `  ${reconciliationLine(r)}`,
    ...r.unexplained.map((u) => `    unexplained: ${u.orderId} ${u.scenario} ${u.code ?? ''}`),
    `  activity timeouts: ${formatCounts(r.timeouts)}`,
    `  workflow task timeouts: ${r.taskTimeouts.length}`,
    ...r.taskTimeouts.map(
      (t) =>
        `    ${t.timeout.orderId} ${t.timeout.timeoutType} at +${((t.timeout.at - r.startedAt) / 1000).toFixed(1)} s: ${t.cause ?? 'UNEXPLAINED'}`,
    ),
    `  settled ${s(r.settleMs)} after the last disruption`,
    ...(r.afterReconcile
      ? [
          `  operator resolved ${r.afterReconcile.withBooking} with the supplier's booking, ${r.afterReconcile.noBooking} as no booking; then duplicates ${r.afterReconcile.audit.duplicates.length}`,
        ]
      : []),
  ];
}
