/**
 * The simulated supplier in its own process (forked by {@link startSimulatorChild}): its event
 * loop and CPU are not the worker's nor the load generator's, as a real supplier's would not be.
 */
import { serveParent } from './child-ipc';
import { BENCH_COMPANY } from './supplier';
import { buildSimulator, type CompanyFaultPatch } from '../../tools/simulator';

async function main(): Promise<void> {
  // The first price check of each option (bench option ids are unique per booking): when a
  // booking's first supplier call arrived, for the bookings-ahead-of-polls part.
  const firstPriceCheck = new Map<string, number>();
  const sim = buildSimulator({
    companies: [{ ...BENCH_COMPANY, active: true }],
    seed: 7,
    onRequest: (r) => {
      if (r.endpoint !== 'price-check') return;
      const id = new URLSearchParams(r.query).get('option_id');
      if (id !== null && !firstPriceCheck.has(id)) firstPriceCheck.set(id, r.atMs);
    },
  });
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
    priceCheckArrivals: (ids: string[]) => ids.map((id) => firstPriceCheck.get(id) ?? null),
    // Further companies (supplier accounts), their faults (a hang), and what each received.
    addCompany: (c: { key: string; secret: string }) => sim.upsertCompany({ ...c, active: true }),
    setCompanyFaults: ({ key, patch }: { key: string; patch: CompanyFaultPatch | null }) =>
      sim.setCompanyFaults(key, patch),
    hangingRequests: () => sim.hangingRequests(),
    companyRequests: (key: string) => sim.requests().byCompany[key]?.total ?? 0,
    stop: () => sim.close(),
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
