/**
 * An account's cap across the fleet: three worker processes, each with account C in its
 * `SUPPLIER_ACCOUNTS` and C's `maxCallsPerSecond`, on a task queue of their own. Enough bookings
 * through C, started at once, to call it for `capSeconds` at the cap (a price check and a booking
 * each at least); the simulator's count of C's requests sampled every 50 ms throughout. Figures
 * (result.ts `capFigures`, the measure of test/accounts/account-cap.test.ts): calls beyond the
 * server's burst per second ÷ the cap, and the worst 1 s window ÷ (2 × cap + 1).
 */
import type { BookingClient } from '../../src/client';
import type { BenchSettings } from '../shared/settings';
import { partTaskQueue, type PartContext, type PartStack } from '../shared/stack';
import type { BenchAccount } from '../shared/supplier';
import { BENCH_COMPANY } from '../shared/supplier';
import { sleep } from '../shared/stats';
import { accountInput, sampler } from './orders';
import { callsEachSecond, capFigures, countOutcomes, type CapResult } from './result';

type Settings = BenchSettings['accounts'];

/** Worker processes of the pass: the row is named for three. */
export const CAP_WORKERS = 3;
const SAMPLE_MS = 50;
/** Calls a booking makes at least: its price check and its booking. */
const CALLS_PER_BOOKING = 2;

export function capAccount(s: Settings): BenchAccount {
  return {
    id: 'c',
    company: { key: 'bench-c-key', secret: 'bench-c-secret-0123456789' },
    maxCallsPerSecond: s.capPerSecond,
  };
}

/** After a moment of samples with no call, `count` bookings through C started at once: outcomes. */
async function bookAll(
  bookings: BookingClient,
  count: number,
  account: string,
  guard: boolean,
): Promise<string[]> {
  await sleep(500);
  const inputs = Array.from({ length: count }, () => accountInput(account, guard));
  const started = await Promise.all(inputs.map((i) => bookings.startBooking(i)));
  return (await Promise.all(started.map((b) => bookings.result(b)))).map((r) => r.outcome);
}

/** The cap pass on `stack` (its other workers stopped first): three workers of its own. */
export async function runCap(s: Settings, stack: PartStack, ctx: PartContext): Promise<CapResult> {
  await stack.stopWorkers();
  const c = capAccount(s);
  const taskQueue = partTaskQueue('accounts-cap');
  for (let i = 0; i < CAP_WORKERS; i++) await stack.startWorker({ accounts: [c] }, taskQueue);
  const bookings = stack.bookingsOn(taskQueue);
  const count = Math.ceil((s.capPerSecond * s.capSeconds) / CALLS_PER_BOOKING);
  const defaultBefore = await stack.sim.companyRequests(BENCH_COMPANY.key);
  const watch = sampler(() => stack.sim.companyRequests(c.company.key), SAMPLE_MS);
  const outcomes = await bookAll(bookings, count, c.id, s.guard).catch(async (err: unknown) => {
    await watch.stop();
    throw err;
  });
  const samples = (await watch.stop()).map((x) => ({ at: x.at, calls: x.value }));
  samples.push({ at: performance.now(), calls: await stack.sim.companyRequests(c.company.key) });
  const figures = capFigures(samples, s.capPerSecond);
  if (!figures) throw new Error('accounts cap: no call reached account C');
  ctx.log(
    `accounts cap: ${figures.calls} calls in ${figures.seconds} s, ` +
      `${figures.steadyPerSecond}/s beyond the burst (cap ${s.capPerSecond}/s), ` +
      `worst 1 s ${figures.worst1sCalls}; each second ${callsEachSecond(samples).join(' ')}`,
  );
  return {
    ...figures,
    callsEachSecond: callsEachSecond(samples),
    capPerSecond: s.capPerSecond,
    workers: CAP_WORKERS,
    bookings: count,
    outcomes: countOutcomes(outcomes),
    defaultAccountCalls: (await stack.sim.companyRequests(BENCH_COMPANY.key)) - defaultBefore,
  };
}
