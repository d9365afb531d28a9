/**
 * The simulated supplier in its own process (forked by {@link startSimulatorChild}): its event
 * loop and CPU are not the worker's nor the load generator's, as a real supplier's would not be.
 */
import { serveParent } from './child-ipc';
import { BENCH_COMPANY } from './bench-config';
import { buildSimulator } from '../src/simulator';

async function main(): Promise<void> {
  const sim = buildSimulator({ companies: [{ ...BENCH_COMPANY, active: true }], seed: 7 });
  const { url } = await sim.listen(0, '127.0.0.1');
  const baseUrl = url.replace(/\/api\/v1\/?$/, '');
  serveParent({
    baseUrl: () => baseUrl,
    setLatency: (ms: number) => {
      sim.setFaults({ latency: ms > 0 ? { fixedMs: ms } : null });
      return ms;
    },
    // Bookings made (201 answers to POST /booking), counted without listing them all.
    bookings: () => sim.requests().byEndpoint.booking?.byStatus['201'] ?? 0,
    requests: () => sim.requests(),
    stop: () => sim.close(),
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
