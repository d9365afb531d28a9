/**
 * The bench's settings for its cluster part (bench/shared/config.ts) and the names its figures are
 * written under (bench/cluster/): the full run includes the cluster, `--quick` leaves it out
 * unless `BENCH_PARTS` names it, bad knobs are one line naming the variable.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outputFor, PARTS, settingsFrom } from '../bench/shared/config';
import { clusterFigures, type ClusterBenchResult } from '../bench/cluster/cluster';
import { pollsOnTime, probeRates, stepHolds } from '../bench/scale/probe';
import { roundOrders } from '../bench/shared/windows';

describe('bench settings: the cluster part', () => {
  it('the full run and --quick have every part, the cluster last', () => {
    assert.deepEqual(settingsFrom([], {}).parts, [...PARTS]);
    assert.equal(PARTS[PARTS.length - 1], 'cluster');
    assert.deepEqual(settingsFrom(['--quick'], {}).parts, [...PARTS]);
    assert.deepEqual(settingsFrom(['--quick'], { BENCH_PARTS: 'cluster' }).parts, ['cluster']);
  });

  it('--quick: one worker pass of 3 rounds, at the quick throughput duration, beside 3 nodes', () => {
    const quick = settingsFrom(['--quick'], {});
    assert.deepEqual(quick.cluster.workers, [1]);
    assert.equal(quick.cluster.rounds, 3);
    assert.equal(quick.cluster.throughput.durationMs, 10_000);
    assert.equal(quick.cluster.nodes, 3);
    assert.deepEqual(
      settingsFrom(['--quick'], { BENCH_CLUSTER_WORKERS: '1,2' }).cluster.workers,
      [1, 2],
    );
  });

  it('defaults: 1, 2 and 3 workers, the throughput duration, overhead at 20 ms only', () => {
    const s = settingsFrom([], { BENCH_DURATION_MS: '40000', BENCH_OVERHEAD_RUNS: '80' });
    assert.deepEqual(s.cluster.workers, [1, 2, 3]);
    assert.equal(s.cluster.throughput.durationMs, 40_000);
    assert.equal(s.cluster.overhead.runs, 80);
    assert.deepEqual(s.cluster.overhead.latenciesMs, [20]);
    assert.equal(s.cluster.rounds, 5);
    assert.equal(s.cluster.basePort, undefined);
    // Eager start needs the worker in the bench's process; the cluster's workers are processes.
    const eager = settingsFrom([], { BENCH_EAGER_START: '1' });
    assert.equal(eager.cluster.overhead.eagerStart, false);
    assert.equal(eager.cluster.overhead.workerInProcess, false);
  });

  it('its own knobs win', () => {
    const s = settingsFrom([], {
      BENCH_CLUSTER_WORKERS: '2,4',
      BENCH_CLUSTER_DURATION_MS: '20000',
      BENCH_CLUSTER_OVERHEAD_RUNS: '30',
      BENCH_CLUSTER_LATENCIES_MS: '20,100',
      BENCH_CLUSTER_BASE_PORT: '22233',
      BENCH_CLUSTER_ROUNDS: '7',
      BENCH_CLUSTER_NODES: '2',
    });
    assert.equal(s.cluster.rounds, 7);
    assert.equal(s.cluster.nodes, 2);
    assert.equal(settingsFrom([], {}).cluster.nodes, 3);
    assert.deepEqual(s.cluster.workers, [2, 4]);
    assert.equal(s.cluster.throughput.durationMs, 20_000);
    assert.equal(s.cluster.overhead.runs, 30);
    assert.deepEqual(s.cluster.overhead.latenciesMs, [20, 100]);
    assert.equal(s.cluster.basePort, 22_233);
  });

  it('a bad knob is one line naming it', () => {
    assert.throws(
      () => settingsFrom([], { BENCH_CLUSTER_WORKERS: '1,x' }),
      /^Error: BENCH_CLUSTER_WORKERS must be/,
    );
    assert.throws(
      () => settingsFrom([], { BENCH_CLUSTER_WORKERS: '0' }),
      /^Error: BENCH_CLUSTER_WORKERS must be a comma list of whole numbers from 1 to 16$/,
    );
    assert.throws(
      () => settingsFrom([], { BENCH_CLUSTER_NODES: '6' }),
      /^Error: BENCH_CLUSTER_NODES must be a whole number from 1 to 5 \(1: no comparison\)$/,
    );
    assert.throws(
      () => settingsFrom([], { BENCH_CLUSTER_LATENCIES_MS: '20,-1' }),
      /^Error: BENCH_CLUSTER_LATENCIES_MS must be/,
    );
    for (const rounds of ['0', '2.5']) {
      assert.throws(
        () => settingsFrom([], { BENCH_CLUSTER_ROUNDS: rounds }),
        /^Error: BENCH_CLUSTER_ROUNDS must be a whole number of at least 1$/,
      );
    }
    assert.throws(
      () => settingsFrom([], { BENCH_WORK_ROUNDS: '0' }),
      /^Error: BENCH_WORK_ROUNDS must be a whole number of at least 1$/,
    );
    assert.throws(
      () => settingsFrom([], { BENCH_PARTS: 'clusters' }),
      /^Error: BENCH_PARTS: unknown part clusters/,
    );
  });

  it("the scale part's probe steps a minute each (10 s at --quick), 1.5 × apart from 1/s up to the flat-out rate", () => {
    assert.equal(settingsFrom([], {}).scale.probeStepMs, 60_000);
    assert.equal(settingsFrom(['--quick'], {}).scale.probeStepMs, 10_000);
    assert.equal(
      settingsFrom([], { BENCH_SCALE_PROBE_STEP_MS: '30000' }).scale.probeStepMs,
      30_000,
    );
    assert.deepEqual(probeRates(8), [1, 1.5, 2.25, 3.38, 5.06, 7.59]);
    assert.deepEqual(probeRates(0.5), []);
  });

  it('a probe step holds when its polls run at most 1 s late at p99 and it kept 90 % of its pace', () => {
    assert.equal(stepHolds(2.25, 2.2, 1_590, 1_000), true);
    assert.equal(stepHolds(2.25, 2.2, 1_590, 1_001), false);
    assert.equal(stepHolds(2.25, 2.02, 1_590, 10), false);
    assert.equal(stepHolds(2.25, 2.03, 1_590, 10), true);
  });

  it('polls are on time only when some started: a stretch with none does not hold (its p99 of nothing is 0)', () => {
    assert.equal(pollsOnTime(0, 0), false);
    assert.equal(stepHolds(2.25, 2.25, 0, 0), false);
    assert.equal(pollsOnTime(1, 1_000), true);
    assert.equal(pollsOnTime(1, 1_001), false);
  });

  it("the scale part's paced build runs at 80 % of the sustainable rate unless its knob says otherwise (0: none)", () => {
    assert.equal(settingsFrom([], {}).scale.pacedFraction, 0.8);
    assert.equal(settingsFrom(['--quick'], {}).scale.pacedFraction, 0.8);
    assert.equal(settingsFrom([], { BENCH_SCALE_PACED_FRACTION: '0' }).scale.pacedFraction, 0);
    assert.throws(
      () => settingsFrom([], { BENCH_SCALE_PACED_FRACTION: '-1' }),
      /^Error: BENCH_SCALE_PACED_FRACTION must be a non-negative number$/,
    );
  });
});

describe('bench cluster figures', () => {
  it('a skipped part is one line', () => {
    assert.deepEqual(clusterFigures({ skipped: 'skipped: no Go' }), {
      'Cluster part': 'skipped: no Go',
    });
  });

  it('names as the README table uses them, values by worker count', () => {
    const t = (bookings: number, control: number) =>
      ({
        bookingsPerSecond: bookings,
        controlWorkflowsPerSecond: control,
        ratioToControl: Math.round((bookings / control) * 1000) / 1000,
        cpuMsPerWorkflow: {
          booking: { server: 30, postgres: 20, worker: 40, all: 90 },
          control: { server: 20, postgres: 20, worker: 20, all: 60 },
        },
      }) as never;
    const r: ClusterBenchResult = {
      topology: 'x',
      startSeconds: 1,
      throughput: { workers1: t(10, 20), workers2: t(15, 20), workers3: t(16, 32) },
      bookingsPerSecond: { '1': 10, '2': 15, '3': 16 },
      overhead: {},
      devServerThroughput: { bookingsPerSecond: 30, controlWorkflowsPerSecond: 40 },
      vsDevServer: {
        latency20: {
          latencyMs: 20,
          clusterRp50: 3,
          devServerRp50: 2,
          clusterBookRoomP50Ms: 120,
          devServerBookRoomP50Ms: 80,
          bookRoomP50Ratio: 1.5,
          clusterControlP50Ms: 40,
          devServerControlP50Ms: 28,
          devServerFrom: 'overhead part',
        },
      },
    };
    const cpu = (server: number) => ({
      booking: { server, postgres: 20 },
      control: { server: 20, postgres: 20 },
    });
    const rounds = [
      {
        bookingsPerSecond: 8,
        controlWorkflowsPerSecond: 10,
        ratio: 0.8,
        cpuMsPerWorkflow: cpu(30),
      },
      {
        bookingsPerSecond: 9,
        controlWorkflowsPerSecond: 10,
        ratio: 0.9,
        cpuMsPerWorkflow: cpu(20),
      },
    ];
    const withRounds = { ...r.throughput.workers1!, rounds };
    assert.deepEqual(
      Object.entries(
        clusterFigures({ ...r, throughput: { ...r.throughput, workers1: withRounds } }),
      ).filter(([k]) => k.includes('rounds')),
      [
        ["Cluster: one worker's rounds, bookings/s ÷ control workflows/s", '0.8 / 0.9'],
        [
          "Cluster: one worker's rounds, server CPU (Temporal + PostgreSQL) per booking ÷ per control",
          '1.25 / 1',
        ],
      ],
    );
    assert.deepEqual(clusterFigures(r), {
      'Cluster: confirmed bookings/s with 1 / 2 / 3 workers': '10 / 15 / 16',
      'Cluster: two-activity control workflows/s with 1 / 2 / 3 workers': '20 / 20 / 32',
      'Cluster: bookings/s ÷ control workflows/s with 1 / 2 / 3 workers': '0.5 / 0.75 / 0.5',
      'Cluster: server CPU (Temporal + PostgreSQL) per booking ÷ per control with 1 / 2 / 3 workers':
        '1.25 / 1.25 / 1.25',
      "Cluster: all processes' CPU per booking ÷ per control with 1 / 2 / 3 workers":
        '1.5 / 1.5 / 1.5',
      'Cluster: bookings/s and control/s, 1 worker, vs dev server': '10 / 20 vs 30 / 40',
      'Cluster: bookRoom p50 ms vs dev server (20 ms)': '120 vs 80 (1.5×)',
      'Cluster: overhead R p50 vs dev server (20 ms)': '3 vs 2',
      'Cluster: no-op control p50 ms vs dev server (20 ms)': '40 vs 28',
    });
  });
});

describe('bench throughput rounds', () => {
  it('the kinds take turns at going first: two rounds are ABBA', () => {
    assert.deepEqual(roundOrders(2), [
      ['booking', 'control'],
      ['control', 'booking'],
    ]);
    assert.deepEqual(
      roundOrders(5).map((o) => o[0]),
      ['booking', 'control', 'booking', 'control', 'booking'],
    );
    assert.ok(roundOrders(5).every((o) => new Set(o).size === 2));
  });
});

describe('bench settings: where the results go', () => {
  it('only a full run of every part replaces latest.json; quick and partial runs write beside it', () => {
    assert.equal(settingsFrom([], {}).output, 'bench/results/latest.json');
    assert.equal(settingsFrom(['--quick'], {}).output, 'bench/results/quick.tmp.json');
    assert.equal(
      settingsFrom([], { BENCH_PARTS: 'overhead,throughput' }).output,
      'bench/results/partial.tmp.json',
    );
    assert.equal(
      settingsFrom(['--quick'], { BENCH_PARTS: 'cluster' }).output,
      'bench/results/partial.tmp.json',
    );
    assert.equal(outputFor(false, [...PARTS], { BENCH_OUTPUT: '/tmp/x.json' }), '/tmp/x.json');
  });
});
