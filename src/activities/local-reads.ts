/**
 * The supplier reads a workflow makes as local activities, within the worker's local budget
 * (local-supplier-budget.ts): the price check of a new booking, and the guard's first read of a
 * confirmed booking's terms. Each takes a token before it calls; without one it answers
 * {@link NO_LOCAL_BUDGET} at once and the workflow schedules the same read as a regular activity.
 * A local read saves the booking a workflow task and an activity's three history events, and runs
 * at once in the worker that holds the task (no queue, so no poll due on the task queue can be
 * ahead of it).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { BookingActivities, PriceCheckResult } from './booking';
import type { EarlierRuns, EarlierRunsActivities, EarlierRunsInput } from './earlier-runs';
import type { FailureFacts } from './failures';
import type { BookingTerms, GuardActivities } from './guard';
import {
  NO_LOCAL_BUDGET,
  takeToken,
  type NoLocalBudget,
  type TokenBucket,
} from './local-supplier-budget';

export interface LocalReadDeps {
  readonly budget: TokenBucket;
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
     * A new booking's first reads, in one local activity: the order's earlier runs (a failure
     * fails the activity, which is retried as the earlier-runs check is) and, for an order with
     * none (the common case), the price check (whose failure is an answer: the workflow schedules
     * the price check instead). The price is read beside the runs' list once its first answer
     * shows no other run (a list that is complete at once: after it); an order with earlier runs
     * is not priced here, so a retry of a decided order makes no supplier call, and should its
     * runs let it book, the workflow schedules the price check. One activity, not two, so the
     * run's history holds one marker.
     */
    async earlierRunsAndPriceCheck(
      input: EarlierRunsInput & { readonly optionId?: string },
    ): Promise<{ earlier: EarlierRuns; price: LocalRead<PriceCheckResult> | NotRead }> {
      const { optionId } = input;
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
      if (!alone || optionId === undefined)
        return { earlier, price: price ? await price : NOT_READ };
      return { earlier, price: await read() };
    },
    async readBookingTermsLocally(input: {
      bookingId: number;
    }): Promise<LocalRead<BookingTerms | { readonly found: false }>> {
      return readLocally(() => deps.readBookingTerms(input));
    },
  };
}

export type LocalReadActivities = ReturnType<typeof createLocalReadActivities>;

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
