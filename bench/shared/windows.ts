/**
 * Throughput windows: `concurrency` loops run one workflow after another; after a warm-up, what
 * completes in the next `ms` is counted, so neither the ramp-up nor the drain is. Shared by the
 * throughput, work and order-events parts, which alternate windows of two kinds in ABBA order
 * ({@link roundOrders}).
 */

export interface Window {
  completed: number;
  seconds: number;
  latencies: number[];
  failures: number;
}

export const emptyWindow = (): Window => ({ completed: 0, seconds: 0, latencies: [], failures: 0 });

/** Adds `w` into `total`. */
export function addWindow(total: Window, w: Window): void {
  total.completed += w.completed;
  total.seconds += w.seconds;
  total.failures += w.failures;
  total.latencies.push(...w.latencies);
}

export async function measureWindow(
  one: () => Promise<boolean>,
  o: {
    readonly concurrency: number;
    readonly warmupMs: number;
    readonly ms: number;
    readonly onFirstFailure: (err: unknown) => void;
    /** Called as the measured part starts and ends (e.g. to read a process's CPU time). */
    readonly onMeasure?: (edge: 'start' | 'end') => void | Promise<void>;
  },
): Promise<Window> {
  let phase: 'warmup' | 'measure' | 'done' = 'warmup';
  const w = emptyWindow();
  const loops = Array.from({ length: o.concurrency }, async () => {
    while (phase !== 'done') {
      const start = performance.now();
      let ok = false;
      try {
        ok = await one();
      } catch (err) {
        if (w.failures === 0) o.onFirstFailure(err);
      }
      if (phase !== 'measure') continue;
      if (ok) {
        w.completed += 1;
        w.latencies.push(performance.now() - start);
      } else {
        w.failures += 1;
      }
    }
  });
  await new Promise((r) => setTimeout(r, o.warmupMs));
  phase = 'measure';
  await o.onMeasure?.('start');
  const m0 = performance.now();
  await new Promise((r) => setTimeout(r, o.ms));
  phase = 'done';
  await o.onMeasure?.('end');
  w.seconds = (performance.now() - m0) / 1000;
  await Promise.all(loops);
  return w;
}

/** A booking beside its control: the two kinds of the windows. */
export type Kind = 'booking' | 'control';

/** The kinds' order in each of `rounds` rounds: AB, BA, AB, … Pure. */
export function roundOrders(rounds: number): (readonly [Kind, Kind])[] {
  return Array.from({ length: rounds }, (_, i) =>
    i % 2 === 0 ? (['booking', 'control'] as const) : (['control', 'booking'] as const),
  );
}
