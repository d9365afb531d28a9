/**
 * The memory instrumentation: the probe preloaded into a real process with a
 * worker thread (as the SDK's workflow thread), the heap-snapshot diff by constructor, and the load
 * drill's memory curve.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import v8 from 'node:v8';
import { diffHeapSummaries, summarizeHeapSnapshot } from '../../tools/chaos/heap-diff';
import { memoryCurve } from '../../tools/chaos/load-run';
import {
  memoryProbeEnv,
  memoryProbeNodeArgs,
  type MemoryProbeSample,
} from '../../tools/chaos/memory-probe';
import { REPO_ROOT } from '../../tools/chaos/worker-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class RetainedByTheTest {
  readonly payload = [1, 2, 3];
}

test('heap diff: objects kept between two snapshots show up by constructor, count and size', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'heap-diff-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const before = v8.writeHeapSnapshot(join(dir, 'before.heapsnapshot'));
  const kept = Array.from({ length: 5_000 }, () => new RetainedByTheTest());
  const after = v8.writeHeapSnapshot(join(dir, 'after.heapsnapshot'));
  assert.equal(kept.length, 5_000);

  const a = summarizeHeapSnapshot(readFileSync(before));
  const b = summarizeHeapSnapshot(readFileSync(after));
  // Every node of the snapshot is counted (the header's node_count).
  const header = JSON.parse(readFileSync(after, 'utf8')) as {
    snapshot: { node_count: number };
  };
  assert.equal(b.nodes, header.snapshot.node_count);
  const row = diffHeapSummaries(a, b).find((r) => r.name === 'RetainedByTheTest');
  assert.ok(row, 'the class is in the diff');
  assert.equal(row.countBefore, 0);
  assert.equal(row.countAfter, 5_000);
  assert.ok(row.bytesAfter >= 5_000 * 16, `self size ${row.bytesAfter}`);
});

test('memory probe: samples the main thread and the worker thread, snapshots both on SIGUSR2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memory-probe-'));
  // A process with one worker thread that holds ~40 MB of JS objects (the workflow thread's role).
  // (The thread's entry is a file, as the SDK's is: the probe wraps it to sample the thread.)
  const entry = join(dir, 'thread.js');
  writeFileSync(
    entry,
    `globalThis.kept = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'x' + i }));
     setInterval(() => {}, 1000);`,
  );
  const script = `
    const { Worker } = require('node:worker_threads');
    new Worker(${JSON.stringify(entry)});
    setTimeout(() => process.exit(0), 240000);
  `;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...memoryProbeNodeArgs(), '-e', script],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...memoryProbeEnv({ dir, intervalMs: 200 }),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  // The child writes samples into `dir` until it is gone: stop it, then remove the directory
  // (removing first raced its writes: ENOTEMPTY on a fresh-clone run).
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'memory.jsonl');
  const samples = (): MemoryProbeSample[] =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as MemoryProbeSample)
      : [];
  const deadline = Date.now() + 60_000;
  while (!samples().some((s) => s.threads === 1 && s.threadHeapUsed > 15 * 2 ** 20)) {
    assert.ok(
      Date.now() < deadline,
      `no sample with the thread's heap: ${JSON.stringify(samples().at(-1))}`,
    );
    await sleep(200);
  }
  const last = samples().at(-1)!;
  assert.ok(last.rss > last.heapTotal + last.threadHeapTotal / 2, JSON.stringify(last));
  // The main thread's heap does not include the thread's objects.
  assert.ok(last.heapUsed < last.threadHeapUsed, JSON.stringify(last));

  child.kill('SIGUSR2');
  const snapshots = join(dir, 'snapshots.jsonl');
  const snapshotDeadline = Date.now() + 120_000;
  while (!existsSync(snapshots)) {
    assert.ok(Date.now() < snapshotDeadline, 'no snapshot after SIGUSR2');
    await sleep(200);
  }
  const thread = summarizeHeapSnapshot(readFileSync(join(dir, 'usr2-1-wf0.heapsnapshot')));
  const main = summarizeHeapSnapshot(readFileSync(join(dir, 'usr2-1-main.heapsnapshot')));
  assert.ok((thread.byConstructor.get('Object')?.count ?? 0) >= 200_000);
  assert.ok((main.byConstructor.get('Object')?.count ?? 0) < 200_000);
});

test('memory curve: one point per interval, the last sample too', () => {
  const line = (atMs: number, rss: number) =>
    JSON.stringify({
      atMs,
      rss: rss * 2 ** 20,
      heapTotal: 2 ** 20,
      heapUsed: 2 ** 20,
      external: 0,
      arrayBuffers: 0,
      threads: 1,
      threadHeapTotal: 3 * 2 ** 20,
      threadHeapUsed: 2 * 2 ** 20,
      threadExternal: 0,
      threadArrayBuffers: 0,
    });
  const jsonl = [0, 5_000, 299_000, 300_000, 305_000, 601_000, 640_000]
    .map((ms, i) => line(ms, 100 + i))
    .join('\n');
  const curve = memoryCurve(`${jsonl}\n`, 300_000);
  assert.deepEqual(
    curve.map((p) => [p.atMin, p.rssMiB, p.threadHeapTotalMiB]),
    [
      [0, 100, 3],
      [5, 103, 3],
      [10, 105, 3],
      [10.7, 106, 3],
    ],
  );
});
