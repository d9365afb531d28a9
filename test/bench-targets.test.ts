/**
 * The bench's figures against their targets (bench/targets.ts): computed from the run's own
 * results, written under the names the README's "Latest full run" table uses, and the load
 * drill's memory figures carried from its summary file (tools/chaos/load-run.ts) into the results.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { overheadAboveFloorMs, targets, targetsRecord, type BenchResults } from '../bench/targets';
import type { OverheadAtLatency } from '../bench/overhead';
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
    assert.deepEqual(t['bookRoom workflow task in the worker (SDK metrics, mean), ms at 20 ms'], {
      value: 1.4,
      target: '≤ 1.5',
      holds: true,
    });
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
    assert.deepEqual(t['Confirmed bookings/s ÷ no-op control workflows/s, same run'], {
      value: 0.75,
      target: '≥ 0.9',
      holds: false,
    });
    assert.deepEqual(t['Worker RSS MiB at start-up, before its first booking'], {
      value: 240,
      target: '≤ 250',
      holds: true,
    });
    assert.equal(t['Worker RSS MiB, 10,000 bookings waiting']?.holds, true);
    assert.equal(t['Worker RSS MiB, peak while they are started']?.holds, false);
    assert.deepEqual(t['Poll lateness p99 ms, watch after the build']?.holds, true);
    assert.deepEqual(
      t['Poll lateness p99 ms, right after building 10,000 waiting bookings (the settle minute)'],
      { value: 54_284, target: '≤ 1000', holds: false },
    );
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
      { value: 0.81, target: '≥ 0.75', holds: true },
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

  it('every figure has its row in bench/README.md under the same name', () => {
    const readme = readFileSync(join(__dirname, '..', 'bench', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Latest full run'));
    for (const t of targets({})) {
      assert.ok(
        section.includes(`| ${t.label} |`),
        `bench/README.md "Latest full run" has no row "${t.label}"`,
      );
    }
  });
});
