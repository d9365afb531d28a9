/**
 * Isolation: account A hangs with its slots full while account B books. One worker process with
 * both accounts in its `SUPPLIER_ACCOUNTS` (A with few slots); per round, the same bookings
 * through B at the same concurrency alone, and while A hangs (the simulator's company fault on
 * A's key, with enough orders through A started to fill its slots and keep them full while its
 * calls time out and retry). The two windows' order turns each round (alone first, then hung
 * first), so a drift of the machine falls on both alike. After a hung window A's hang is cleared
 * and its orders end before the next window. Figure: B during ÷ B alone, per round.
 */
import type { BookRoomInput } from '../../src/shared/booking-contract';
import type { BenchSettings } from '../shared/settings';
import type { PartContext, PartStack } from '../shared/stack';
import type { BenchAccount } from '../shared/supplier';
import { round } from '../shared/stats';
import { accountInput, bookThrough, runBatch, sampler, until, type Batch } from './orders';
import {
  countOutcomes,
  isolationResult,
  type IsolationResult,
  type IsolationRound,
  type RoundOrder,
} from './result';

type Settings = BenchSettings['accounts'];

/** How long A's slots may take to fill, and A's orders to end once its hang is cleared. */
const FILL_MS = 30_000;
const DRAIN_MS = 120_000;
/** Orders started through A per slot: its slots stay full while hung calls time out and retry. */
const ORDERS_PER_SLOT = 3;

/** The two accounts of the pass: A (few slots, hung) and B (the default account's slots). */
export function isolationAccounts(s: Settings): { a: BenchAccount; b: BenchAccount } {
  return {
    a: {
      id: 'a',
      company: { key: 'bench-a-key', secret: 'bench-a-secret-0123456789' },
      maxConcurrentCalls: s.hungSlots,
    },
    b: { id: 'b', company: { key: 'bench-b-key', secret: 'bench-b-secret-0123456789' } },
  };
}

/** A window of B's bookings. */
function bWindow(s: Settings, stack: PartStack, ctx: PartContext): Promise<Batch> {
  return runBatch(
    s.bookings,
    s.concurrency,
    () => bookThrough(stack.bookings, 'b', s.guard),
    (err) => ctx.log(`accounts: a booking through B failed: ${String(err)}`),
  );
}

/** Hangs A and starts its orders; resolves once its slots are full (hanging at the simulator). */
async function hangA(s: Settings, stack: PartStack, a: BenchAccount): Promise<BookRoomInput[]> {
  await stack.sim.setCompanyFaults(a.company.key, { hang: true });
  const orders = Array.from({ length: ORDERS_PER_SLOT * s.hungSlots }, () =>
    accountInput(a.id, s.guard),
  );
  for (const input of orders) await stack.bookings.startBooking(input);
  const hanging = async () => (await stack.sim.hangingRequests())[a.company.key] ?? 0;
  await until(async () => (await hanging()) >= s.hungSlots, FILL_MS, "A's slots full");
  return orders;
}

/** Clears A's hang and waits for each of its orders to end: their outcomes. */
async function releaseA(
  stack: PartStack,
  a: BenchAccount,
  orders: readonly BookRoomInput[],
): Promise<string[]> {
  await stack.sim.setCompanyFaults(a.company.key, null);
  const ended = Promise.all(orders.map((o) => stack.bookings.result(o.orderId)));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`A's orders not ended in ${DRAIN_MS} ms`)), DRAIN_MS);
  });
  try {
    return (await Promise.race([ended, late])).map((r) => r.outcome);
  } finally {
    clearTimeout(timer);
  }
}

/** B's window while A hangs, with A's hanging requests sampled through it; then A released. */
async function hungWindow(s: Settings, stack: PartStack, ctx: PartContext, a: BenchAccount) {
  const orders = await hangA(s, stack, a);
  const watch = sampler(async () => (await stack.sim.hangingRequests())[a.company.key] ?? 0, 200);
  const batch = await bWindow(s, stack, ctx);
  const hanging = (await watch.stop()).map((x) => x.value);
  const outcomes = await releaseA(stack, a, orders);
  return { batch, hanging, outcomes };
}

async function oneRound(
  s: Settings,
  stack: PartStack,
  ctx: PartContext,
  a: BenchAccount,
  order: RoundOrder,
): Promise<IsolationRound> {
  let alone: Batch | undefined;
  if (order === 'alone-first') alone = await bWindow(s, stack, ctx);
  const hung = await hungWindow(s, stack, ctx, a);
  alone ??= await bWindow(s, stack, ctx);
  const mean = hung.hanging.reduce((x, y) => x + y, 0) / Math.max(1, hung.hanging.length);
  return {
    order,
    aloneBookingsPerSecond: round(alone.perSecond),
    duringBookingsPerSecond: round(hung.batch.perSecond),
    ratio: round(hung.batch.perSecond / alone.perSecond, 3),
    aHangingMin: hung.hanging.length > 0 ? Math.min(...hung.hanging) : 0,
    aHangingMean: round(mean, 1),
    aOutcomes: countOutcomes(hung.outcomes),
    failures: alone.failures + hung.batch.failures,
  };
}

/** The isolation pass on `stack`, whose worker runs A and B. */
export async function runIsolation(
  s: Settings,
  stack: PartStack,
  ctx: PartContext,
): Promise<IsolationResult> {
  const { a } = isolationAccounts(s);
  // Warm-up: B's path and A's, before any window.
  await bWindow({ ...s, bookings: Math.min(s.bookings, 2 * s.concurrency) }, stack, ctx);
  for (let i = 0; i < 2; i++) await bookThrough(stack.bookings, a.id, s.guard);
  const rounds: IsolationRound[] = [];
  for (let i = 0; i < s.rounds; i++) {
    const r = await oneRound(s, stack, ctx, a, i % 2 === 0 ? 'alone-first' : 'hung-first');
    ctx.log(
      `accounts isolation round ${i + 1} (${r.order}): B ${r.duringBookingsPerSecond} bookings/s ` +
        `while A hangs ÷ ${r.aloneBookingsPerSecond} alone = ${r.ratio}; A hanging ` +
        `min ${r.aHangingMin} mean ${r.aHangingMean}; A's orders ${JSON.stringify(r.aOutcomes)}`,
    );
    rounds.push(r);
  }
  return isolationResult(rounds, {
    bookings: s.bookings,
    concurrency: s.concurrency,
    hungSlots: s.hungSlots,
    hungOrders: ORDERS_PER_SLOT * s.hungSlots,
    supplierLatencyMs: s.latencyMs,
  });
}
