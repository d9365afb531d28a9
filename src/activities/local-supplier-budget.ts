/**
 * A worker's own budget for the supplier reads it makes as local activities, which the task
 * queue's fleet-wide cap does not see (`SUPPLIER_LOCAL_CALLS_PER_SECOND`: docs/operating.md).
 */

/** A token bucket: `perSecond` tokens a second, holding at most one second's worth. */
export interface TokenBucket {
  readonly perSecond: number;
  tokens: number;
  /** When `tokens` was last brought up to date, ms. */
  at: number;
}

export function tokenBucket(perSecond: number, now: number): TokenBucket {
  return { perSecond, tokens: perSecond, at: now };
}

/** Takes one token if there is one (refilled for the time since the last take). Pure but for `b`. */
export function takeToken(b: TokenBucket, now: number): boolean {
  if (b.perSecond === Infinity) return true;
  const elapsed = Math.max(0, now - b.at);
  b.tokens = Math.min(b.perSecond, b.tokens + (elapsed / 1000) * b.perSecond);
  b.at = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

/**
 * The worker's local budget: unlimited without a fleet cap (nothing to stay under), none with a
 * cap unless the operator gives each worker a share (`SUPPLIER_LOCAL_CALLS_PER_SECOND`).
 */
export function localCallsPerSecond(
  fleetCapPerSecond: number | undefined,
  localPerSecond: number | undefined,
): number {
  return localPerSecond ?? (fleetCapPerSecond ? 0 : Infinity);
}

/** What a local supplier read answers when the worker's budget is spent: schedule it instead. */
export const NO_LOCAL_BUDGET = { kind: 'no-local-budget' } as const;
export type NoLocalBudget = typeof NO_LOCAL_BUDGET;
