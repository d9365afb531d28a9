/**
 * A bench worker in its own process (forked by the bench): its RSS is the worker's alone
 * (`/proc/<pid>/status`), and its CPU is not shared with the load generator's event loop.
 */
import { serveParent } from './child-ipc';
import { startBenchWorker, type BenchWorker, type BenchWorkerInit } from './worker';

let bench: BenchWorker | undefined;

serveParent({
  start: async (init: BenchWorkerInit) => {
    if (bench) throw new Error('already started');
    bench = await startBenchWorker(init);
    return true;
  },
  takeLateness: () => bench?.takeLateness() ?? [],
  takeLatenessTimes: () => bench?.takeLatenessTimes() ?? [],
  /** The main thread's memory (the workflow thread's heap is only in `rss`). */
  memory: () => process.memoryUsage(),
  stop: async () => {
    await bench?.stop();
  },
});
