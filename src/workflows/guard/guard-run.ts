/**
 * The state of one `guardBooking` run, in one place: what the guard knows of the booking (the
 * `Carried` record, handed over by `continueAsNew`), the cancellation requests in flight, and the
 * small mutators that keep the search attributes, the UI's details and the flag metric in step
 * with it. Steps (guard-booking-steps.ts) and handlers (guard-booking-messages.ts) take the run.
 */
import { metricMeter, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { MetricCounter } from '@temporalio/common';
import { SearchAttributeWriter } from '../search-attribute-writer';
import type { BookingError, Polling, SupplierPrice } from '../../shared/booking-contract';
import { CancellationOutcome } from '../../shared/booking-values';
import { DEFAULT_POLLING } from '../../config/defaults';
import { defaultGuardPolicy } from '../../shared/input-fast-path';
import type {
  CancellationTerms,
  GuardBookingParams,
  GuardFlag,
  GuardPolicy,
  OrderState,
} from '../../shared/guard-contract';
import { FINAL_GUARD_PHASES, GuardPhase, ReconfirmationMark } from '../../shared/guard-values';
import { BookingPhaseKey, ReconfirmationKey, SupplierStatusKey } from '../../shared/search-attributes';
import {
  autoCancelAfterNotice,
  autoCancelTime,
  cancellationTerms,
  decideCancellation,
  endingNoticeTime,
  iso,
} from './guard-decisions';
import { OrderEventOutbox } from '../order-events/order-event-outbox';
import { OrderEventType } from '../../shared/order-events';
import { parseInstant } from '../../shared/dates';
import { durationToMs } from '../../shared/duration';
import { truthOf } from '../../shared/order-truth';

export type CancelBy = 'update' | 'temporal' | 'auto';
export interface CancelRequest {
  readonly by: CancelBy;
  readonly reason?: string;
  readonly acceptPenalty: boolean;
}

/** Everything the guard knows, carried across `continueAsNew`. */
export interface Carried {
  phase: GuardPhase;
  supplierStatus?: string;
  checkIn?: string;
  checkOut?: string;
  checkInAt?: number;
  checkOutAt?: number;
  terms: CancellationTerms;
  reconfirmAt: number[];
  reconfirmations: { at: string; status: string }[];
  flag?: GuardFlag;
  autoCancel?: { at?: string; kept: boolean; done: boolean };
  cancellation?: OrderState['cancellation'];
  refusal?: { at: string; message: string };
  lastError?: BookingError & { at: string };
  /** When `order.free_cancellation_ending` was announced (order events on). */
  endingAnnouncedAt?: number;
  /** The last order event's sequence (order events on). */
  lastEventSequence?: number;
}

export class GuardRun {
  readonly orderId: string;
  readonly bookingId: number;
  readonly policy: GuardPolicy;
  readonly polling: Polling;
  /** Set when this run continues an earlier one (the terms are then known). */
  readonly carried: boolean;
  /** What the guard knows of the booking. */
  readonly s: Carried;
  /** The cancellation request the script takes next. */
  pending: CancelRequest | undefined;
  /** `cancel` updates handed to the script, and how many it has taken. */
  requested = 0;
  taken = 0;
  /** Something a wait depends on changed (e.g. `keep`): the script looks again. */
  changed = false;
  /** The terms are known (read at the start, or carried over). */
  ready: boolean;
  /** Order events are on (bookRoom handed over with `orderEvents`): changes are announced. */
  readonly events: OrderEventOutbox | undefined;
  /**
   * Every search attribute write of the run. Merged (one upsert per step, unchanged values
   * dropped) for a guard bookRoom started in one task (`startedInOneTask`, in the input, so a
   * replay decides the same); one upsert per write for guards started before that.
   */
  readonly sa: SearchAttributeWriter;
  readonly #flags: MetricCounter;

  constructor(
    readonly p: GuardBookingParams,
    /**
     * Set when the guard lives in its booking's workflow (`bookRoomAndGuard`), with the booking
     * run's writer and outbox in the run that decided: `BookingOutcome` then stays the decision.
     */
    readonly inBooking?: {
      readonly sa?: SearchAttributeWriter;
      readonly events?: OrderEventOutbox;
    },
  ) {
    this.orderId = p.orderId;
    this.bookingId = p.bookingId;
    this.policy = p.guard ?? defaultGuardPolicy();
    this.polling = p.polling ?? DEFAULT_POLLING;
    const carried = p.carried as Carried | undefined;
    this.carried = carried !== undefined;
    this.ready = carried !== undefined;
    this.s = carried ?? {
      phase: p.cancellationPending ? GuardPhase.CANCELLATION_PENDING : GuardPhase.CONFIRMED,
      ...(p.cancellationPending
        ? {
            cancellation: {
              requestedAt: iso(Date.now()),
              by: 'update' as const,
              reason: 'requested while booking; the supplier had not confirmed it',
              acceptPenalty: false,
              outcome: CancellationOutcome.STILL_ACTIVE,
            },
          }
        : {}),
      ...(p.checkIn !== undefined ? { checkIn: p.checkIn } : {}),
      terms: cancellationTerms({ orderDeadline: this.policy.freeCancellationUntil }),
      reconfirmAt: [],
      reconfirmations: [],
    };
    this.sa = inBooking?.sa ?? new SearchAttributeWriter(p.startedInOneTask === true);
    this.events =
      inBooking?.events ??
      (p.orderEvents
        ? new OrderEventOutbox(p.orderId, this.s.lastEventSequence ?? p.orderEvents.lastSequence)
        : undefined);
    this.#flags = metricMeter.createCounter(
      'hotel_reconfirmation_flags',
      'bookings',
      'Confirmed bookings flagged by the guard (reconfirmation not CONFIRMED, supplier cancelled, cancellation unconfirmed)',
    );
  }

  get isFinal(): boolean {
    return FINAL_GUARD_PHASES.includes(this.s.phase);
  }

  /** The `bookingState` query's answer: the order's one truth after CONFIRMED. */
  state(): OrderState {
    const { s, p } = this;
    return {
      orderId: this.orderId,
      phase: s.phase,
      truth: truthOf(s.phase, !this.isFinal),
      holder: 'guardBooking',
      workflowId: workflowInfo().workflowId,
      open: !this.isFinal,
      outcome: 'CONFIRMED',
      bookingId: this.bookingId,
      cancelRequested: s.cancellation !== undefined,
      ...(s.supplierStatus !== undefined ? { supplierStatus: s.supplierStatus } : {}),
      ...(p.price !== undefined ? { price: p.price as SupplierPrice } : {}),
      ...(s.lastError !== undefined ? { lastError: s.lastError } : {}),
      ...(s.checkIn !== undefined ? { checkIn: s.checkIn } : {}),
      ...(s.checkInAt !== undefined ? { checkInAt: iso(s.checkInAt) } : {}),
      ...(s.checkOutAt !== undefined ? { checkOutAt: iso(s.checkOutAt) } : {}),
      terms: s.terms,
      ...(s.reconfirmAt[0] !== undefined && !this.isFinal
        ? { nextReconfirmationAt: iso(s.reconfirmAt[0]) }
        : {}),
      reconfirmations: s.reconfirmations,
      ...(s.flag !== undefined ? { flag: s.flag } : {}),
      ...(s.autoCancel !== undefined ? { autoCancel: s.autoCancel } : {}),
      ...(s.cancellation !== undefined ? { cancellation: s.cancellation } : {}),
      ...(s.refusal !== undefined ? { refusal: s.refusal } : {}),
    };
  }

  /** The workflow's current details in the UI. */
  details(): string {
    const { s } = this;
    const lines = [
      `**${s.phase}** — order \`${this.orderId}\`, supplier booking ${this.bookingId}`,
    ];
    if (s.terms.refundable === false) lines.push('non-refundable rate');
    else
      lines.push(
        `free cancellation until ${s.terms.freeCancellationUntil ?? 'unknown (cancelling needs acceptPenalty)'}`,
      );
    if (s.checkInAt !== undefined) lines.push(`check-in ${iso(s.checkInAt)}`);
    if (s.reconfirmAt[0] !== undefined && !this.isFinal)
      lines.push(`next reconfirmation ${iso(s.reconfirmAt[0])}`);
    if (s.autoCancel && !s.autoCancel.done)
      lines.push(
        s.autoCancel.kept
          ? 'kept by the order system (no automatic cancellation)'
          : `cancels automatically at ${s.autoCancel.at ?? '?'} unless kept`,
      );
    if (s.flag) lines.push(`flagged ${s.flag.reason}: ${s.flag.message}`);
    if (s.refusal) lines.push(`cancellation refused: ${s.refusal.message}`);
    return lines.join('\n\n');
  }

  /** Every change of the order's phase after CONFIRMED passes here. */
  enter(next: GuardPhase): void {
    this.s.phase = next;
    this.sa.write([{ key: BookingPhaseKey, value: next }]);
    setCurrentDetails(this.details());
    this.events?.phase(next, this.eventData());
  }

  /** What the guard's order events say besides their type. */
  eventData() {
    const { s, p } = this;
    const flagged =
      s.phase === GuardPhase.NEEDS_ATTENTION || s.phase === GuardPhase.CANCELLED_BY_SUPPLIER;
    const reason = flagged ? s.flag?.message : s.cancellation?.reason;
    return {
      truth: truthOf(s.phase, !this.isFinal),
      bookingId: this.bookingId,
      ...(s.supplierStatus !== undefined ? { supplierStatus: s.supplierStatus } : {}),
      ...(p.price !== undefined ? { price: p.price as SupplierPrice } : {}),
      ...(s.terms.freeCancellationUntil !== undefined
        ? { freeCancellationUntil: s.terms.freeCancellationUntil }
        : {}),
      ...(reason !== undefined ? { reason } : {}),
    };
  }

  /** When to announce that free cancellation ends: once, while the booking stands. */
  endingNoticeAt(): number | undefined {
    const { s } = this;
    if (!this.events || s.endingAnnouncedAt !== undefined) return undefined;
    if (s.phase !== GuardPhase.CONFIRMED && s.phase !== GuardPhase.NEEDS_ATTENTION)
      return undefined;
    return endingNoticeTime(parseInstant(s.terms.freeCancellationUntil), Date.now());
  }

  /** Announces `order.free_cancellation_ending` (with the automatic cancellation, if armed). */
  announceEnding(): void {
    const { s } = this;
    s.endingAnnouncedAt = Date.now();
    const at = this.autoCancelAt();
    this.events?.push(OrderEventType.FREE_CANCELLATION_ENDING, {
      ...this.eventData(),
      phase: s.phase,
      reason:
        at !== undefined
          ? `free cancellation ends at ${s.terms.freeCancellationUntil}; cancelled automatically at ${iso(at)} unless kept`
          : `free cancellation ends at ${s.terms.freeCancellationUntil}`,
    });
  }

  flag(reason: GuardFlag['reason'], message: string, mark = true): void {
    this.s.flag = { reason, message, at: iso(Date.now()) };
    if (mark) this.sa.write([{ key: ReconfirmationKey, value: ReconfirmationMark.FLAGGED }]);
    this.#flags.add(1, { reason });
  }

  setStatus(status: string): void {
    this.s.supplierStatus = status;
    this.sa.write([{ key: SupplierStatusKey, value: status }]);
  }

  /** Arms or disarms `autoCancelBeforePenalty` from the current terms. */
  armAutoCancel(): void {
    if (!this.policy.autoCancelBeforePenalty) return;
    const at = autoCancelTime(this.s.terms, this.policy.autoCancelMargin);
    this.s.autoCancel = {
      kept: this.s.autoCancel?.kept ?? false,
      done: this.s.autoCancel?.done ?? false,
      ...(at !== undefined ? { at: iso(at) } : {}),
    };
  }

  /** When the automatic cancellation runs, while it is armed and the booking stands. */
  autoCancelAt(): number | undefined {
    const a = this.s.autoCancel;
    if (!a || a.kept || a.done || a.at === undefined) return undefined;
    if (this.s.phase !== GuardPhase.CONFIRMED && this.s.phase !== GuardPhase.NEEDS_ATTENTION)
      return undefined;
    const at = parseInstant(a.at);
    if (at === undefined || !this.events) return at;
    // Order events on: never before the order system was told and had time to answer.
    const told = this.s.endingAnnouncedAt;
    if (told === undefined) return undefined;
    return autoCancelAfterNotice(
      at,
      told,
      parseInstant(this.s.terms.freeCancellationUntil),
      durationToMs(this.policy.autoCancelNotice) ?? 0,
    );
  }

  /** Whether a cancellation may run now (guard-decisions.ts). */
  decide(acceptPenalty: boolean) {
    return decideCancellation({
      orderId: this.orderId,
      now: Date.now(),
      phase: this.s.phase,
      terms: this.s.terms,
      checkInAt: this.s.checkInAt,
      acceptPenalty,
    });
  }
}
