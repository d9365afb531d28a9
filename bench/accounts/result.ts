/** What the `accounts` part reports (bench/accounts/accounts.ts), and the pure steps to its figures. */
import { round, spread, type Spread } from '../shared/stats';

/** Which window of a round ran first. */
export type RoundOrder = 'alone-first' | 'hung-first';

/** One isolation round: B alone and B while A hangs, the same bookings at the same concurrency. */
export interface IsolationRound {
  readonly order: RoundOrder;
  readonly aloneBookingsPerSecond: number;
  readonly duringBookingsPerSecond: number;
  /** During ÷ alone. */
  readonly ratio: number;
  /** A's requests hanging at the simulator while B booked: the fewest and the mean of samples. */
  readonly aHangingMin: number;
  readonly aHangingMean: number;
  /** How A's orders ended once its hang was cleared, by outcome. */
  readonly aOutcomes: Readonly<Record<string, number>>;
  /** B's bookings that did not confirm, both windows. */
  readonly failures: number;
}

export interface IsolationResult {
  /** B during ÷ B alone, over the rounds: the row is its median. */
  readonly ratio: Spread;
  readonly rounds: readonly IsolationRound[];
  readonly bookings: number;
  readonly concurrency: number;
  /** A's slots (`maxConcurrentCalls`, one worker) and the orders started through it each round. */
  readonly hungSlots: number;
  readonly hungOrders: number;
  readonly supplierLatencyMs: number;
}

/** A count of the capped account's calls at the simulator, and when (performance.now(), ms). */
export interface CallSample {
  readonly at: number;
  readonly calls: number;
}

export interface CapFigures {
  /** The account's calls at the supplier over the pass. */
  readonly calls: number;
  /** From the last sample with no call to the end. */
  readonly seconds: number;
  /** (calls − the server's burst, cap + 1) ÷ seconds: the row's numerator. */
  readonly steadyPerSecond: number;
  /** The row: steadyPerSecond ÷ cap. */
  readonly steadyRatio: number;
  /** The most calls in any window of 1 s, and that ÷ (2 × cap + 1), the limiter's 1 s bound. */
  readonly worst1sCalls: number;
  readonly worst1sRatio: number;
}

export interface CapResult extends CapFigures {
  /** C's calls in each second from the last sample with none (the last second may be partial). */
  readonly callsEachSecond: readonly number[];
  readonly capPerSecond: number;
  readonly workers: number;
  readonly bookings: number;
  readonly outcomes: Readonly<Record<string, number>>;
  /** Calls that reached the default account's company (none should). */
  readonly defaultAccountCalls: number;
}

export interface AccountsResult {
  readonly isolation: IsolationResult;
  readonly cap: CapResult;
}

/** The isolation figures of the rounds. Pure. */
export function isolationResult(
  rounds: readonly IsolationRound[],
  s: Omit<IsolationResult, 'ratio' | 'rounds'>,
): IsolationResult {
  return { ratio: spread(rounds.map((r) => r.ratio)), rounds, ...s };
}

/**
 * The cap figures of the samples (as test/accounts/account-cap.test.ts measures): beyond the
 * server's burst of cap + 1, the calls over the seconds from the last sample with none to the
 * last sample, ÷ the cap; and the worst 1 s window ÷ (2 × cap + 1). Undefined with no call. Pure.
 */
export function capFigures(samples: readonly CallSample[], cap: number): CapFigures | undefined {
  const first = samples.find((x) => x.calls > 0);
  const last = samples.at(-1);
  if (!first || !last) return undefined;
  const idle = samples.findLast((x) => x.at < first.at) ?? first;
  const seconds = (last.at - idle.at) / 1000;
  const steady = (last.calls - (cap + 1)) / seconds;
  let worst = 0;
  for (const end of samples) {
    const start = samples.findLast((x) => x.at <= end.at - 1000);
    if (start) worst = Math.max(worst, end.calls - start.calls);
  }
  return {
    calls: last.calls,
    seconds: round(seconds, 2),
    steadyPerSecond: round(steady, 2),
    steadyRatio: round(steady / cap, 3),
    worst1sCalls: worst,
    worst1sRatio: round(worst / (2 * cap + 1), 3),
  };
}

/** The calls in each second from the last sample with no call, read at the samples. Pure. */
export function callsEachSecond(samples: readonly CallSample[]): number[] {
  const first = samples.find((x) => x.calls > 0);
  if (!first) return [];
  const idle = samples.findLast((x) => x.at < first.at) ?? first;
  const counts: number[] = [];
  let before = idle.calls;
  for (let end = idle.at + 1000; ; end += 1000) {
    const at = samples.findLast((x) => x.at <= end);
    counts.push((at?.calls ?? before) - before);
    before = at?.calls ?? before;
    if (end >= samples.at(-1)!.at) return counts;
  }
}

/** Outcomes counted by name. Pure. */
export function countOutcomes(outcomes: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/** The part's figures printed beside the table's rows (no target of their own). Pure. */
export function accountsFigures(a: AccountsResult): Record<string, string> {
  const rounds = a.isolation.rounds;
  const c = a.cap;
  return {
    'Accounts: B while A hangs ÷ B alone, each round': rounds.map((r) => r.ratio).join(' / '),
    'Accounts: B bookings/s alone vs while A hangs, each round': rounds
      .map((r) => `${r.aloneBookingsPerSecond} vs ${r.duringBookingsPerSecond}`)
      .join(' / '),
    [`Accounts: A's requests hanging while B booked (${a.isolation.hungSlots} slots), fewest each round`]:
      rounds.map((r) => r.aHangingMin).join(' / '),
    [`Accounts: cap pass, C's calls in s, beyond the burst /s (cap ${c.capPerSecond}/s)`]: `${c.calls} in ${c.seconds} s, ${c.steadyPerSecond}/s`,
  };
}
