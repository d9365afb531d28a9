/**
 * The supplier reads a workflow makes as local activities, within the worker's local budget
 * (local-supplier-budget.ts), else answering {@link NO_LOCAL_BUDGET} for the workflow to schedule
 * them. A local read saves a workflow task and three history events, and no poll queued on the
 * task queue is ahead of it.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { BookingActivities, PriceCheckResult } from './booking';
import type { EarlierRuns, EarlierRunsActivities, EarlierRunsInput } from './earlier-runs';
import type { FailureFacts } from './failures';
import { DEFAULT_SUPPLIER_ACCOUNT } from '../shared/supplier-accounts';
import type { GuardActivities } from './guard';
import {
  NO_LOCAL_BUDGET,
  takeToken,
  type NoLocalBudget,
  type TokenBucket,
} from './local-supplier-budget';

export interface LocalReadDeps {
  readonly budget: TokenBucket;
  /** Whether each configured supplier account takes new orders, by id. */
  readonly accounts: ReadonlyMap<string, { readonly enabled: boolean }>;
  readonly priceCheck: BookingActivities['priceCheck'];
  readonly readBookingTerms: GuardActivities['readBookingTerms'];
  readonly earlierRunsOfOrder: EarlierRunsActivities['earlierRunsOfOrder'];
}

/** A local read's answer: the read's own result, no budget, or a failure (then: scheduled). */
export type LocalRead<T> =
  | { readonly kind: 'read'; readonly result: T }
  | NoLocalBudget
  | {
      readonly kind: 'failed';
      readonly code: string;
      readonly message: string;
      /** A retryable failure is left to the scheduled read; another one is the read's answer. */
      readonly retryable: boolean;
    };

/** Why an order's account takes no new order: not configured, or disabled. */
export type AccountRefusal = 'unknown' | 'disabled';

/** A read that was not made: the order has earlier runs, which decide first. */
export type NotRead = { readonly kind: 'not-read' };
const NOT_READ: NotRead = { kind: 'not-read' };

export function createLocalReadActivities(deps: LocalReadDeps) {
  /** A read within the budget: its result, its failure, or no budget (then it is not made). */
  const readLocally = async <T>(read: () => Promise<T>): Promise<LocalRead<T>> => {
    if (!takeToken(deps.budget, Date.now())) return NO_LOCAL_BUDGET;
    try {
      return { kind: 'read', result: await read() };
    } catch (err) {
      return failed(err);
    }
  };
  return {
    /**
     * A new booking's first reads, in one local activity: the order's earlier runs and, for an
     * order with none, the price check (whose failure is an answer: the workflow schedules it),
     * read once the runs' first list shows no other run, so a retried decided order calls no
     * supplier. With another account than the default it says whether that one takes new orders,
     * and prices nothing (its reads go to its own queue).
     */
    async earlierRunsAndPriceCheck(
      input: EarlierRunsInput & { readonly optionId?: string; readonly supplier?: string },
    ): Promise<{
      earlier: EarlierRuns;
      price: LocalRead<PriceCheckResult> | NotRead;
      account?: AccountRefusal;
    }> {
      const account = refusal(deps.accounts, input.supplier);
      const local = input.supplier ?? DEFAULT_SUPPLIER_ACCOUNT;
      const optionId =
        account === undefined && local === DEFAULT_SUPPLIER_ACCOUNT ? input.optionId : undefined;
      let price: Promise<LocalRead<PriceCheckResult>> | undefined;
      const read = () => (price ??= readLocally(() => deps.priceCheck({ optionId: optionId! })));
      const earlier = await deps.earlierRunsOfOrder(
        { orderId: input.orderId, runId: input.runId },
        (otherRuns) => {
          if (otherRuns === 0 && optionId !== undefined) void read();
        },
      );
      const alone = earlier.runs.length === 0 && !earlier.guard;
      // A price read beside a list that later showed an earlier run (visibility behind by a few
      // ms) was made: its answer is kept, the workflow decides on the runs first.
      const refused = account ? { account } : {};
      if (!alone || optionId === undefined)
        return { earlier, price: price ? await price : NOT_READ, ...refused };
      return { earlier, price: await read(), ...refused };
    },
    readBookingTermsLocally: (input: { bookingId: number }) =>
      readLocally(() => deps.readBookingTerms(input)),
  };
}

export type LocalReadActivities = ReturnType<typeof createLocalReadActivities>;

/** Whether the order's account takes a new order (the default account when it names none). */
function refusal(
  accounts: LocalReadDeps['accounts'],
  supplier: string | undefined,
): AccountRefusal | undefined {
  const account = accounts.get(supplier ?? DEFAULT_SUPPLIER_ACCOUNT);
  if (!account) return 'unknown';
  return account.enabled ? undefined : 'disabled';
}

/** A read's failure as the activities classified it (the facts in its details). */
function failed(err: unknown): Extract<LocalRead<never>, { kind: 'failed' }> {
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof ApplicationFailure))
    return { kind: 'failed', code: 'UNKNOWN', message, retryable: true };
  const facts = err.details?.[0] as Partial<FailureFacts> | undefined;
  return {
    kind: 'failed',
    code: facts?.code ?? err.type ?? 'UNKNOWN',
    message,
    retryable: !err.nonRetryable,
  };
}
