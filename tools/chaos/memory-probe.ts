/**
 * Memory probe for the drills and the bench: preloaded into a worker process
 * with `node --import ./tools/chaos/memory-probe.ts` (see {@link memoryProbeNodeArgs}), never part of
 * the product. Active only when `MEMORY_PROBE_DIR` is set in the process's environment:
 *
 * - every `MEMORY_PROBE_INTERVAL_MS` (default 5000) it appends one JSON line to
 *   `<dir>/memory.jsonl`: ms since start, `process.memoryUsage()` of the main thread (rss,
 *   heapTotal, heapUsed, external, arrayBuffers) and the V8 heap of the SDK's workflow thread(s)
 *   as last measured by a snapshot (the main thread cannot read another isolate's heap on Node 20);
 * - at each of `MEMORY_PROBE_SNAPSHOTS_AT_MS` (comma-separated ms since start), and on SIGUSR2,
 *   it writes heap snapshots of the main thread and of every workflow thread into `<dir>`
 *   (`<label>-main.heapsnapshot`, `<label>-wf<i>.heapsnapshot`), for
 *   `npx tsx tools/chaos/heap-diff.ts a.heapsnapshot b.heapsnapshot`.
 *
 * The workflow threads are the SDK's `worker_threads.Worker`s: the probe learns them by wrapping
 * the module's `Worker` class before the SDK is loaded (the SDK reads the property at the call).
 */
import { appendFileSync, createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import v8 from 'node:v8';
import workerThreads from 'node:worker_threads';

/** One line of `memory.jsonl`. */
export interface MemoryProbeSample {
  readonly atMs: number;
  readonly rss: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Workflow threads alive. */
  readonly threads: number;
  /** The workflow threads' own `process.memoryUsage()` (their isolates), summed, bytes. */
  readonly threadHeapTotal: number;
  readonly threadHeapUsed: number;
  readonly threadExternal: number;
  readonly threadArrayBuffers: number;
}

/** Code run as the thread's entry (eval): the sampler, then the SDK's own entry module. */
function threadPreamble(entry: string, intervalMs: number): string {
  return `
const { workerData } = require('node:worker_threads');
const stats = new Float64Array(workerData.memoryProbe);
const sample = () => {
  const m = process.memoryUsage();
  stats[0] = m.heapTotal; stats[1] = m.heapUsed; stats[2] = m.external; stats[3] = m.arrayBuffers;
};
sample();
setInterval(sample, ${Math.max(100, Math.floor(intervalMs / 2))}).unref();
require(${JSON.stringify(entry)});
`;
}

/** Node arguments that preload the probe (relative to the repository root, the worker's cwd). */
export function memoryProbeNodeArgs(): string[] {
  return ['--import', './tools/chaos/memory-probe.ts'];
}

/** Environment for the probe: where it writes, how often it samples, when it snapshots. */
export function memoryProbeEnv(o: {
  dir: string;
  intervalMs?: number;
  snapshotsAtMs?: readonly number[];
}): Record<string, string> {
  return {
    MEMORY_PROBE_DIR: o.dir,
    MEMORY_PROBE_INTERVAL_MS: String(o.intervalMs ?? 5_000),
    MEMORY_PROBE_SNAPSHOTS_AT_MS: (o.snapshotsAtMs ?? []).join(','),
  };
}

function install(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  const threads = new Set<workerThreads.Worker>();
  const Original = workerThreads.Worker;
  // Threads inherit the process's execArgv: without the probe's `--import` (a .ts file the thread's
  // loader cannot read before tsx is registered there, and one probe per process is enough).
  // Threads may not be given V8 or per-process flags, so only the loader arguments are passed on.
  const probeArgs = memoryProbeNodeArgs();
  const threadExecArgv: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (['--import', '--require', '-r', '--loader', '--experimental-loader'].includes(arg)) {
      const value = argv[i + 1];
      i += 1;
      if (value !== undefined && !(arg === probeArgs[0] && value === probeArgs[1]))
        threadExecArgv.push(arg, value);
    }
  }
  // Each thread's own heap (Node 20 has no Worker#getHeapStatistics): a few lines run in the thread
  // before its entry module write its process.memoryUsage() into shared memory every interval.
  const interval = Number(process.env.MEMORY_PROBE_INTERVAL_MS || 5_000);
  const threadStats = new Map<workerThreads.Worker, Float64Array>();
  class ProbedWorker extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      const [filename, options] = args;
      if (typeof filename === 'string' && !options?.eval && options?.workerData === undefined) {
        const shared = new SharedArrayBuffer(4 * 8);
        super(threadPreamble(filename, interval), {
          ...options,
          execArgv: options?.execArgv ?? threadExecArgv,
          eval: true,
          workerData: { memoryProbe: shared },
        });
        threadStats.set(this, new Float64Array(shared));
      } else {
        super(filename, { execArgv: threadExecArgv, ...options });
      }
      threads.add(this);
      this.once('exit', () => {
        threads.delete(this);
        threadStats.delete(this);
      });
    }
  }
  (workerThreads as { Worker: typeof Original }).Worker = ProbedWorker;

  const file = join(dir, 'memory.jsonl');
  const sample = () => {
    const m = process.memoryUsage();
    const line: { -readonly [K in keyof MemoryProbeSample]: MemoryProbeSample[K] } = {
      atMs: Date.now() - t0,
      rss: m.rss,
      heapTotal: m.heapTotal,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      threads: threads.size,
      threadHeapTotal: 0,
      threadHeapUsed: 0,
      threadExternal: 0,
      threadArrayBuffers: 0,
    };
    for (const stats of threadStats.values()) {
      line.threadHeapTotal += stats[0]!;
      line.threadHeapUsed += stats[1]!;
      line.threadExternal += stats[2]!;
      line.threadArrayBuffers += stats[3]!;
    }
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  sample();
  setInterval(sample, interval).unref();

  let busy = false;
  const snapshot = async (label: string) => {
    if (busy) return;
    busy = true;
    try {
      const started = Date.now();
      v8.writeHeapSnapshot(join(dir, `${label}-main.heapsnapshot`));
      let i = 0;
      for (const t of threads) {
        const stream = await t.getHeapSnapshot();
        await pipeline(stream, createWriteStream(join(dir, `${label}-wf${i++}.heapsnapshot`)));
      }
      appendFileSync(
        join(dir, 'snapshots.jsonl'),
        `${JSON.stringify({ label, atMs: started - t0, tookMs: Date.now() - started, threads: i })}\n`,
      );
    } finally {
      busy = false;
    }
  };
  const at = (process.env.MEMORY_PROBE_SNAPSHOTS_AT_MS ?? '')
    .split(',')
    .filter((s) => s.trim() !== '')
    .map(Number)
    .filter((n) => Number.isFinite(n) && n >= 0);
  for (const ms of at) {
    setTimeout(() => void snapshot(`t${Math.round(ms / 1000)}s`), ms).unref();
  }
  let n = 0;
  process.on('SIGUSR2', () => void snapshot(`usr2-${++n}`));
}

const probeDir = process.env.MEMORY_PROBE_DIR;
if (probeDir) install(probeDir);
