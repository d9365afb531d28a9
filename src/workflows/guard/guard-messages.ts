/**
 * The guard's query and updates: each handler is one line into the run's state; the
 * validators refuse, before anything is written to history, what cannot be done now.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type { GuardCancelRequest, KeepRequest, OrderState } from '../../shared/guard-contract';
import { GuardPhase } from '../../shared/guard-values';
import { bookingStateQuery, cancelUpdate, keepUpdate } from '../../shared/booking-messages';
import type { GuardRun } from './guard-run';
import { checkGuardCancelRequest, checkKeepRequest, issueText } from '../input-checks';

export function registerGuardHandlers(run: GuardRun): void {
  setHandler(bookingStateQuery, () => run.state());
  setHandler(cancelUpdate, (request) => cancel(run, request), {
    validator: (request) => validateCancel(run, request),
  });
  setHandler(keepUpdate, () => keep(run), { validator: (request) => validateKeep(run, request) });
}

/** Throws the refusal, its code as the failure's type (CancellationRefusedError.code). */
function refuseIfNot(decision: ReturnType<GuardRun['decide']>): void {
  if (decision.kind === 'refuse')
    throw ApplicationFailure.nonRetryable(decision.message, decision.code);
}

/** Hands the request to the script, and answers once the script has taken it. */
async function cancel(
  run: GuardRun,
  request: GuardCancelRequest | null | undefined,
): Promise<OrderState> {
  // Non-cancellable: after a refused Temporal cancellation the root scope stays cancelled,
  // and later requests must still be answered.
  await CancellationScope.nonCancellable(async () => {
    // A request that arrives before the terms are read is decided on them, not without them.
    await condition(() => run.ready);
    const acceptPenalty = request?.acceptPenalty === true;
    const decision = run.decide(acceptPenalty);
    refuseIfNot(decision);
    if (decision.kind === 'already') return;
    run.pending = {
      by: 'update',
      acceptPenalty,
      ...(request?.reason ? { reason: request.reason } : {}),
    };
    const mine = ++run.requested;
    await condition(() => run.taken >= mine);
  });
  return run.state();
}

function validateCancel(run: GuardRun, request: GuardCancelRequest | null | undefined): void {
  const parsedRequest = checkGuardCancelRequest(request ?? {});
  if (!parsedRequest.success) throw new Error(`cancel: ${issueText(parsedRequest.issues)}`);
  // Refused before it is written to history when the answer is already known.
  if (run.ready) refuseIfNot(run.decide(request?.acceptPenalty === true));
}

/** The order system keeps the booking: no automatic cancellation. */
function keep(run: GuardRun): OrderState {
  run.known.autoCancel = { ...(run.known.autoCancel ?? { done: false }), kept: true };
  run.changed = true;
  setCurrentDetails(run.details());
  return run.state();
}

function validateKeep(run: GuardRun, request: KeepRequest | null | undefined): void {
  if (!checkKeepRequest(request ?? {}).success) throw new Error('keep: give {} or { reason }');
  if (!run.policy.autoCancelBeforePenalty)
    throw new Error(
      `Order ${run.orderId} was booked without autoCancelBeforePenalty: there is no automatic cancellation to stop`,
    );
  if (run.known.autoCancel?.done || run.isFinal || run.known.phase === GuardPhase.CANCELLING)
    throw new Error(
      `Order ${run.orderId} is ${run.known.phase}: the automatic cancellation has already run or the order has ended`,
    );
}
