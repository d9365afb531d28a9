/** The guard's steps (guard.ts runs them), over its state (guard-run.ts); decisions: guard-decisions.ts. */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingTerms, GuardActivities } from '../../activities/guard';
import type { LocalReadActivities } from '../../activities/local-reads';
import { CancellationOutcome } from '../../shared/booking-values';
import type { GuardInput } from '../../shared/guard-contract';
import { GuardPhase, ReconfirmationMark } from '../../shared/guard-values';
import {
  BookingPhaseKey,
  CheckInDateKey,
  FreeCancellationUntilKey,
  OrderIdKey,
  ReconfirmationKey,
  SupplierBookingIdKey,
} from '../../shared/search-attributes';
import { LOCAL_READ_ACTIVITY, READ_ACTIVITY, onAccount, readsLocally } from '../activity-options';
import { runCancellation } from '../cancellation/cancellation';
import { toBookingError } from '../failure-facts';
import {
  cancellationTerms,
  iso,
  nextWake,
  reconfirmationTimes,
  reconfirmationVerdict,
  stayInstants,
  WAKE_SUMMARIES,
  type BookingRead,
} from './guard-decisions';
import { parseInstant } from '../../shared/dates';
import { waitUntil } from '../wait';
import type { TermsRead } from './guard-state';
import type { CancelRequest, GuardRun } from './guard-run';

/** The one supplier read; `local`: first as a local activity, scheduled when the budget is spent. */
export function readBooking(run: GuardRun, why: string, local = false): Promise<TermsRead> {
  const summary = `${why}: GET /retrieve of supplier booking ${run.bookingId}`;
  const input = { bookingId: run.bookingId };
  const remote = () =>
    proxyActivities<GuardActivities>(
      onAccount({ ...READ_ACTIVITY, summary }, run.params.supplier),
    ).readBookingTerms(input);
  if (!local || !readsLocally(run.params.supplier))
    return remote().then(termsRead, (err) => unreadable(run, err));
  const { readBookingTermsLocally } = proxyLocalActivities<LocalReadActivities>({
    ...LOCAL_READ_ACTIVITY,
    summary: `${summary} (local)`,
  });
  return readBookingTermsLocally(input)
    .then((read) => (read.kind === 'read' ? read.result : remote()))
    .then(termsRead, (err) => unreadable(run, err));
}

function termsRead(r: BookingTerms | { readonly found: false }): TermsRead {
  return r.found ? { kind: 'status', status: r.status, terms: r } : { kind: 'not-found' };
}

function unreadable(run: GuardRun, err: unknown): TermsRead {
  const e = toBookingError(err);
  run.known.lastError = { ...e, at: iso(Date.now()) };
  return { kind: 'unreadable', code: e.code, message: e.message };
}

/** Applies what a read says (reconfirmationVerdict). */
function apply(run: GuardRun, r: BookingRead): void {
  const { known } = run;
  if (r.kind === 'status') run.setStatus(r.status);
  known.reconfirmations.push({
    at: iso(Date.now()),
    status: r.kind === 'status' ? r.status : r.kind === 'not-found' ? 'NOT_FOUND' : 'UNREADABLE',
  });
  const weCancelled = known.cancellation !== undefined;
  const verdict = reconfirmationVerdict(r, weCancelled, run.bookingId);
  switch (verdict.kind) {
    case 'confirmed':
      run.searchAttributes.write([{ key: ReconfirmationKey, value: ReconfirmationMark.CONFIRMED }]);
      if (known.phase === GuardPhase.NEEDS_ATTENTION) run.enter(GuardPhase.CONFIRMED);
      else setCurrentDetails(run.details());
      return;
    case 'cancelled-by-us':
      if (known.cancellation) known.cancellation = { ...known.cancellation, outcome: 'CANCELLED' };
      run.enter(GuardPhase.CANCELLED);
      return;
    case 'cancelled-by-supplier':
      run.flag('SUPPLIER_CANCELLED', `the supplier cancelled booking ${run.bookingId}`);
      run.enter(GuardPhase.CANCELLED_BY_SUPPLIER);
      return;
    case 'flag':
      run.flag(verdict.reason, verdict.message);
      if (known.phase === GuardPhase.CONFIRMED) run.enter(GuardPhase.NEEDS_ATTENTION);
      else setCurrentDetails(run.details());
      return;
  }
}

/** The booking's status and terms at the start: the booking's last read's, else read now. */
function firstRead(run: GuardRun): TermsRead | Promise<TermsRead> {
  const held = run.params.terms;
  if (held) return { kind: 'status', status: held.status, terms: { found: true, ...held } };
  return run.home.readTerms(run);
}

/** The first read (synchronous when the booking's last read holds the terms). */
export function start(run: GuardRun): void | Promise<void> {
  run.searchAttributes.write([
    { key: OrderIdKey, value: run.orderId },
    { key: SupplierBookingIdKey, value: run.bookingId },
    { key: BookingPhaseKey, value: run.known.phase },
  ]);
  const r = firstRead(run);
  return r instanceof Promise ? r.then((read) => learn(run, read)) : learn(run, r);
}

function learn(run: GuardRun, r: TermsRead): void {
  const { known, policy } = run;
  const terms = r.terms;
  if (terms) {
    if (terms.checkIn) known.checkIn = terms.checkIn;
    if (terms.checkOut) known.checkOut = terms.checkOut;
    known.terms = cancellationTerms({
      supplierPenaltyDate: terms.penaltyDate,
      refundable: terms.refundable ?? undefined,
      orderDeadline: policy.freeCancellationUntil,
    });
  }
  const stay = stayInstants({
    checkIn: known.checkIn,
    checkOut: known.checkOut,
    checkInAt: policy.checkInAt,
    checkOutAt: policy.checkOutAt,
  });
  Object.assign(known, stay);
  // Points already past are covered by this read.
  known.reconfirmAt = reconfirmationTimes(known.checkInAt, policy.reconfirmBefore).filter(
    (t) => t > Date.now(),
  );
  const deadline = parseInstant(known.terms.freeCancellationUntil);
  const learned = [
    ...(deadline !== undefined
      ? [{ key: FreeCancellationUntilKey, value: new Date(deadline) }]
      : []),
    ...(known.checkIn !== undefined
      ? [{ key: CheckInDateKey, value: new Date(`${known.checkIn}T00:00:00Z`) }]
      : []),
  ];
  // An empty upsert is refused by the server (the workflow task fails and is retried).
  if (learned.length > 0) run.searchAttributes.write(learned);
  run.armAutoCancel();
  apply(run, r);
}

/** Rule 4: a cancellation decided (guard-decisions.ts), then run until the supplier confirms it. */
export async function cancel(run: GuardRun, request: CancelRequest): Promise<void> {
  const { known } = run;
  const decision = run.decide(request.acceptPenalty);
  if (decision.kind === 'already') return;
  if (decision.kind === 'refuse') {
    known.refusal = { at: iso(Date.now()), message: decision.message };
    setCurrentDetails(run.details());
    return;
  }
  known.refusal = undefined;
  known.cancellation = {
    requestedAt: iso(Date.now()),
    by: request.by,
    acceptPenalty: request.acceptPenalty,
    ...(request.reason !== undefined ? { reason: request.reason } : {}),
  };
  run.enter(GuardPhase.CANCELLING);
  const pending = (why: string) => {
    run.flag('CANCELLATION_UNCONFIRMED', why, false);
    run.enter(GuardPhase.CANCELLATION_PENDING);
  };
  let outcome: CancellationOutcome;
  try {
    ({ outcome } = await runCancellation(
      run.bookingId,
      run.params.cancellationDeadline,
      run.polling,
      run.params.supplier,
    ));
  } catch (err) {
    const e = toBookingError(err);
    known.lastError = { ...e, at: iso(Date.now()) };
    return pending(`the cancellation failed: ${e.code}`);
  }
  known.cancellation = { ...known.cancellation, outcome };
  if (outcome === CancellationOutcome.STILL_ACTIVE) {
    const deadline = String(run.params.cancellationDeadline);
    return pending(`the supplier did not confirm the cancellation within ${deadline}`);
  }
  run.setStatus('CANCELLED');
  run.enter(GuardPhase.CANCELLED);
}

/** Until nothing is left to guard: cancellations, one timer per point in time, continue-as-new. */
export async function watch(
  run: GuardRun,
  input: GuardInput,
  continueWith: (next: GuardInput) => Promise<never> = (next) =>
    continueAsNew<(i: GuardInput) => Promise<unknown>>(next),
): Promise<void> {
  const { known } = run;
  if (!run.carried) {
    // bookRoom's cancellation is still open: the order system hears it from the guard.
    if (known.phase === GuardPhase.CANCELLATION_PENDING)
      run.events?.phase(known.phase, run.eventData());
    const started = start(run);
    if (started instanceof Promise) await started;
  }
  run.ready = true;
  setCurrentDetails(run.details());
  while (!run.isFinal) {
    if (run.pending) {
      const request = run.pending;
      run.pending = undefined;
      run.taken = run.requested;
      await cancel(run, request);
      continue;
    }
    const wake = nextWake({
      reconfirmAt: known.reconfirmAt,
      endingNoticeAt: run.endingNoticeAt(),
      autoCancelAt: run.autoCancelAt(),
      checkOutAt: known.checkOutAt,
    });
    const timer = wake && { ms: wake.at - Date.now(), summary: WAKE_SUMMARIES[wake.what] };
    if (!timer || timer.ms > 0) {
      run.changed = false;
      const interrupted = await waitUntil(() => run.pending !== undefined || run.changed, timer);
      if (interrupted) continue;
    }
    if (!wake) continue;
    if (wake.what === 'ending-notice') {
      run.announceEnding();
    } else if (wake.what === 'auto-cancel') {
      known.autoCancel = { ...known.autoCancel!, done: true };
      const deadline = known.terms.freeCancellationUntil ?? '?';
      run.pending = {
        by: 'auto',
        acceptPenalty: false,
        reason: `autoCancelBeforePenalty: the order system did not keep it before free cancellation ends (${deadline})`,
      };
    } else if (wake.what === 'reconfirm') {
      known.reconfirmAt = known.reconfirmAt.slice(1);
      apply(run, await readBooking(run, 'Reconfirmation before check-in'));
    } else {
      run.enter(GuardPhase.CHECKED_OUT);
    }
    if (workflowInfo().continueAsNewSuggested && !run.isFinal && !run.pending) {
      run.searchAttributes.flush();
      await run.events?.flushed();
      await condition(allHandlersFinished);
      await continueWith({
        ...input,
        carried: {
          ...known,
          ...(run.events ? { lastEventSequence: run.events.lastSequence } : {}),
        },
      });
    }
  }
  run.home.closing?.(run);
  run.searchAttributes.flush();
  await run.events?.flushed();
}
