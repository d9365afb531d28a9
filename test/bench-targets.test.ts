/**
 * The bench's figures against their targets (bench/report/targets.ts): computed from the run's own
 * results, written under the names the README's "Latest full run" table uses, the rows whose
 * target was replaced kept as reported figures, and the load drill's memory figures carried from
 * its summary file (tools/chaos/load-run.ts) into the results.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  overheadAboveFloorMs,
  reported,
  targets,
  targetsRecord,
  type BenchResults,
} from '../bench/report/targets';
import type { OverheadAtLatency } from '../bench/overhead/overhead';
import {
  readLoadDrillSummaries,
  writeLoadDrillSummary,
  type LoadRunReport,
} from '../tools/chaos/load-run';

const summary = (p50: number) => ({ n: 10, p50, p90: p50, p99: p50, max: p50, mean: p50 });

function overhead(workflow: number, direct: number, control: number, task: number) {
  return {
    latencyMs: 20,
    p50: workflow / direct,
    workflowMs: summary(workflow),
    directMs: summary(direct),
    controlMs: summary(control),
    workerMeansMs: { bookRoomWorkflowTask: task },
  } as unknown as OverheadAtLatency;
}

function loadReport(durationMs: number, early: number, late: number): LoadRunReport {
  return {
    options: { bookingsPerSecond: 10, durationMs },
    started: 18_000,
    passed: true,
    memory: {
      samples: [],
      warmupMs: durationMs / 4,
      early: early * 1048576,
      late: late * 1048576,
      growth: (late - early) / early,
      maxRss: late * 1048576,
      maxGrowth: 0.05,
      curve: [],
      probeDir: '/x',
    },
  } as unknown as LoadRunReport;
}

describe('bench targets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-bench-targets-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('overhead above the engine floor is bookRoom p50 − direct p50 − control p50', () => {
    assert.equal(overheadAboveFloorMs(overhead(87.11, 42.51, 27.8, 5.29)), 16.8);
    assert.equal(overheadAboveFloorMs(undefined), undefined);
  });

  it("the performance targets' figures are computed from the run and judged against their targets", () => {
    const r: BenchResults = {
      overhead: {
        latency20: overhead(60, 42, 12, 1.4),
        latency100: overhead(230, 202, 18, 1.6),
      },
      throughput: { bookingsPerSecond: 30, controlWorkflowsPerSecond: 40, efficiency: 1.5 },
      scale: {
        openWorkflows: 10_000,
        startupRssMiB: 240,
        workerRssMiB: 290,
        buildRssMiB: 330,
        workflowTaskTimeouts: 0,
        pollLatenessP99Ms: 100,
        settle: { pollLatenessP99Ms: 54_284 },
      },
    };
    const t = targetsRecord(r);
    assert.equal(
      t[
        'Overhead above the engine floor (bookRoom − direct calls − no-op control), p50 ms at 20 ms'
      ]?.value,
      6,
    );
    assert.equal(
      t[
        'Overhead above the engine floor (bookRoom − direct calls − no-op control), p50 ms at 100 ms'
      ]?.holds,
      false,
    );
    assert.deepEqual(t['Worker RSS MiB at start-up, before its first booking'], {
      value: 240,
      target: '≤ 250',
      holds: true,
    });
    assert.equal(t['Worker RSS MiB, 10,000 bookings waiting']?.holds, true);
    assert.equal(t['Worker RSS MiB, peak while they are started']?.holds, false);
    assert.deepEqual(t['Poll lateness p99 ms, watch after the build']?.holds, true);
    // The production topology's rows: the cluster part's one-worker rounds.
    const one = {
      ratioOfRounds: { median: 0.81, min: 0.7, max: 0.9 },
      serverCpuRatioOfRounds: { median: 1.31, min: 1.1, max: 1.4 },
    };
    const cluster = targetsRecord({
      cluster: { throughput: { workers1: one } } as unknown as BenchResults['cluster'],
    });
    assert.deepEqual(
      cluster[
        'Cluster (PostgreSQL, one worker): confirmed bookings/s ÷ two-activity control workflows/s, median of rounds'
      ],
      { value: 0.81, target: '≥ 0.8', holds: true },
    );
    assert.deepEqual(
      cluster[
        'Cluster (PostgreSQL, one worker): server CPU (Temporal + PostgreSQL) per confirmed booking ÷ per two-activity control, median of rounds'
      ],
      { value: 1.31, target: '≤ 1.3', holds: false },
    );
    assert.equal(Object.keys(targetsRecord({ cluster: { skipped: 'no Go' } })).length, 0);
    // Figures the run has not measured are left out, not written as failures.
    assert.equal(
      t["New booking's first supplier call while 10,000 polls are due, p99 ms"],
      undefined,
    );
    assert.equal(Object.keys(targetsRecord({})).length, 0);
  });

  it("the issue's targets: two-activity ratios ≥ 0.8, worker CPU ≤ 2 ×, events ≥ 0.95 and ≤ 1 state change an event, the paced build's polls ≤ 1 s", () => {
    const spreadOf = (median: number) => ({ median, min: median, max: median });
    const r = {
      work: {
        throughputRatio: spreadOf(0.79),
        workerCpuRatio: spreadOf(1.9),
        serverCpuRatio: spreadOf(1.1),
        stateChangesRatio: spreadOf(1),
      },
      events: {
        eventsCostRatio: 0.96,
        hangingRatio: 0.94,
        stateChangesPerDeliveredEvent: -0.02,
        stateChangesPerEventHanging: 1.4,
      },
      scale: {
        openWorkflows: 10_000,
        workerRssMiB: 290,
        buildRssMiB: 300,
        workflowTaskTimeouts: 0,
        pollLatenessP99Ms: 100,
        settle: { pollLatenessP99Ms: 25_580 },
        paced: { pollLatenessP99Ms: 1_200 },
      },
    } as unknown as BenchResults;
    const t = targetsRecord(r);
    const expected: Array<[string, number, string, boolean]> = [
      [
        'Confirmed bookings/s ÷ two-activity control workflows/s, median of rounds',
        0.79,
        '≥ 0.8',
        false,
      ],
      [
        'Worker CPU per confirmed booking ÷ per two-activity control, median of rounds',
        1.9,
        '≤ 2',
        true,
      ],
      [
        'Order events: confirmed bookings/s to an answering endpoint ÷ events off',
        0.96,
        '≥ 0.95',
        true,
      ],
      [
        'Order events: confirmed bookings/s to a hanging endpoint ÷ to an answering one',
        0.94,
        '≥ 0.95',
        false,
      ],
      // Noise can put the difference of two windows' state changes below zero: reported as it is.
      ['Order events: saved state changes per delivered event', -0.02, '≤ 1', true],
      [
        'Poll lateness p99 ms, the minute after building 10,000 waiting bookings at 80 % of the sustainable rate',
        1_200,
        '≤ 1000',
        false,
      ],
    ];
    for (const [label, value, target, holds] of expected)
      assert.deepEqual(t[label], { value, target, holds }, label);
    // The flat-out build's settle minute and the hanging endpoint's state changes: figures only.
    const figures = reported(r);
    assert.equal(
      figures[
        'Poll lateness p99 ms, right after building 10,000 waiting bookings flat out (the settle window, one poll cap)'
      ],
      25_580,
    );
    assert.equal(
      figures['Order events: saved state changes per event, to a hanging endpoint'],
      1.4,
    );
  });

  it('the rows whose target was replaced are reported figures, not targets', () => {
    const r: BenchResults = {
      overhead: {
        latency20: overhead(60, 42, 12, 1.4),
        latency100: overhead(230, 202, 18, 1.6),
      },
      throughput: { bookingsPerSecond: 30, controlWorkflowsPerSecond: 40, efficiency: 1.5 },
      scale: {
        openWorkflows: 10_000,
        workerRssMiB: 290,
        buildRssMiB: 300,
        workflowTaskTimeouts: 0,
        pollLatenessP99Ms: 100,
        settle: { pollLatenessP99Ms: 54_284 },
      },
    };
    const replaced = {
      'Overhead R p50 at 100 ms': 230 / 202,
      'Overhead R p50 at 20 ms': 60 / 42,
      'bookRoom workflow task in the worker (SDK metrics, mean), ms at 20 ms': 1.4,
      'Confirmed bookings/s ÷ no-op control workflows/s, same run': 0.75,
      'Poll lateness p99 ms, right after building 10,000 waiting bookings flat out (the settle window, one poll cap)': 54_284,
    };
    assert.deepEqual(reported(r), replaced);
    const labels = new Set(targets(r).map((t) => t.label));
    for (const label of Object.keys(replaced)) assert.ok(!labels.has(label), label);
    assert.ok(
      ![...labels].some((l) => l.includes('the settle window')),
      'the flat-out settle minute has no target',
    );
    // What the run did not measure is left out of both.
    assert.deepEqual(reported({}), {});
  });

  it('a drill of 30 min or more leaves its memory figures for the bench; a shorter one does not', () => {
    assert.equal(
      writeLoadDrillSummary(dir, loadReport(10 * 60_000, 380, 390), new Date()),
      undefined,
    );
    assert.equal(readLoadDrillSummaries(dir), undefined);
    const path = writeLoadDrillSummary(dir, loadReport(30 * 60_000, 380, 391.4), new Date(0));
    assert.equal(path, join(dir, 'load-drill-30min.json'));
    const back = JSON.parse(readFileSync(path!, 'utf8')) as { growthPercent: number };
    assert.equal(back.growthPercent, 3);
    const drills = readLoadDrillSummaries(dir);
    assert.equal(drills?.['30min']?.firstFifthRssMiB, 380);
    assert.equal(drills?.['60min'], undefined);
    const t = targetsRecord({ loadDrills: drills });
    assert.deepEqual(
      t['30-min load drill: worker RSS growth %, last vs first fifth after warm-up'],
      { value: 3, target: '≤ 5', holds: true },
    );
  });

  it('every figure has its row in bench/results/log.md under the same name', () => {
    const readme = readFileSync(join(__dirname, '..', 'bench', 'results', 'log.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Latest full run'));
    for (const t of targets({})) {
      assert.ok(
        section.includes(`| ${t.label} |`),
        `bench/results/log.md "Latest full run" has no row "${t.label}"`,
      );
    }
    // The reported rows of fixed names (the promise count's are named by its steps).
    const every = reported({
      overhead: { latency20: overhead(1, 1, 1, 1), latency100: overhead(1, 1, 1, 1) },
      throughput: { bookingsPerSecond: 1, controlWorkflowsPerSecond: 1, efficiency: 1 },
      scale: { settle: { pollLatenessP99Ms: 1 } },
      events: { stateChangesPerEventHanging: 1 },
    } as unknown as BenchResults);
    assert.equal(Object.keys(every).length, 6);
    for (const label of Object.keys(every)) {
      assert.ok(
        section.includes(`| ${label} |`),
        `bench/results/log.md "Latest full run" has no row "${label}"`,
      );
    }
  });
});
