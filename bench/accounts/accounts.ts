/**
 * Supplier accounts: what one account's trouble costs another, and one account's cap across the
 * fleet. On one dev server and simulator (each account a company of it): the isolation pass
 * (isolation.ts: B's bookings/s while A hangs with its slots full ÷ B alone, per round), then the
 * cap pass (cap.ts: three workers with account C's `maxCallsPerSecond`, its calls counted at the
 * simulator). The workers run the accounts as `npm run worker` does (shared/account-workers.ts).
 */
import type { BenchSettings } from '../shared/settings';
import { startPartStack, type PartContext } from '../shared/stack';
import { runCap } from './cap';
import { isolationAccounts, runIsolation } from './isolation';
import type { AccountsResult } from './result';

export type { AccountsResult } from './result';

export async function runAccountsBench(
  s: BenchSettings['accounts'],
  ctx: PartContext,
): Promise<AccountsResult> {
  const { a, b } = isolationAccounts(s);
  const stack = await startPartStack(ctx, {
    name: 'accounts',
    latencyMs: s.latencyMs,
    workflow: s.workflow,
    worker: { accounts: [a, b] },
  });
  try {
    const isolation = await runIsolation(s, stack, ctx);
    const cap = await runCap(s, stack, ctx);
    return { isolation, cap };
  } finally {
    await stack.stop();
  }
}
