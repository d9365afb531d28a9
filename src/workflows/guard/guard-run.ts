/** The guard's state, and the mutators that keep its attributes, details and metric in step. */
import { metricMeter, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { MetricCounter } from '@temporalio/common';
import type { Polling, SupplierPrice } from '../../shared/booking-contract';
import { CancellationOutcome } from '../../shared/booking-values';
import { DEFAULT_POLLING } from '../../config/defaults';
import { defaultGuardPolicy } from '../../shared/input-fast-path';
import type { GuardParams, GuardFlag, GuardPolicy, OrderState } from '../../shared/guard-contract';
import { FINAL_GUARD_PHASES, GuardPhase, ReconfirmationMark } from '../../shared/guard-values';
import {
  BookingPhaseKey,
  ReconfirmationKey,
  SupplierStatusKey,
} from '../../shared/search-attributes';
import {
  autoCancelAfterNotice,
  autoCancelTime,
  cancellationTerms,
  decideCancellation,
  endingNoticeTime,
  iso,
  isoOf,
} from './guard-decisions';
import { defined } from '../../shared/defined';
import type { OrderEventOutbox } from '../../order-events/workflows/outbox';
import type { SearchAttributes } from '../search-attribute-writer';
import type { Carried, TermsRead } from './guard-state';
import { OrderEventType } from '../../order-events/contract/event';
import { parseInstant } from '../../shared/dates';
import { durationToMs } from '../../shared/duration';
import { truthOf } from '../../shared/order-truth';

/** Where a guard lives (its order's workflow, or its own in earlier versions): writer, outbox, first read. */
export interface GuardHome {
  readonly searchAttributes: SearchAttributes;
  readonly events: OrderEventOutbox | undefined;
  readTerms(run: GuardRun): Promise<TermsRead>;
  /** Called as the guard ends, before its last writes go out. */
  closing?(run: GuardRun): void;
}

export type CancelBy = 'update' | 'temporal' | 'auto';
export interface CancelRequest {
  readonly by: CancelBy;
  readonly reason?: string;
  readonly acceptPenalty: boolean;
}

export class GuardRun {
  readonly orderId: string;
  readonly bookingId: number;
  readonly policy: GuardPolicy;
  readonly polling: Polling;
  /** Set when this run continues an earlier one (the terms are then known). */
  readonly carried: boolean;
  readonly known: Carried;
  /** The cancellation request the script takes next. */
  pending: CancelRequest | undefined;
  /** `cancel` updates handed to the script, and how many it has taken. */
  requested = 0;
  taken = 0;
  /** Something a wait depends on changed (e.g. `keep`): the script looks again. */
  changed = false;
  /** The terms are known (read at the start, or carried over). */
  ready: boolean;
  /** Order events are on: changes are announced. */
  readonly events: OrderEventOutbox | undefined;
  /** Every search attribute write of the guard (its home's). */
  readonly searchAttributes: SearchAttributes;
  readonly #flags: MetricCounter;

  constructor(
    readonly params: GuardParams,
    readonly home: GuardHome,
  ) {
    this.orderId = params.orderId;
    this.bookingId = params.bookingId;
    this.policy = params.guard ?? defaultGuardPolicy();
    this.polling = params.polling ?? DEFAULT_POLLING;
    const carried = params.carried as Carried | undefined;
    this.carried = carried !== undefined;
    this.ready = carried !== undefined;
    this.known = carried ?? {
      phase: params.cancellationPending ? GuardPhase.CANCELLATION_PENDING : GuardPhase.CONFIRMED,
      ...(params.cancellationPending
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
      ...(params.checkIn !== undefined ? { checkIn: params.checkIn } : {}),
      terms: cancellationTerms({ orderDeadline: this.policy.freeCancellationUntil }),
      reconfirmAt: [],
      reconfirmations: [],
    };
    this.searchAttributes = home.searchAttributes;
    this.events = home.events;
    this.#flags = metricMeter.createCounter(
      'hotel_reconfirmation_flags',
      'bookings',
      'Confirmed bookings flagged by the guard (reconfirmation not CONFIRMED, supplier cancelled, cancellation unconfirmed)',
    );
  }

  get isFinal(): boolean {
    return FINAL_GUARD_PHASES.includes(this.known.phase);
  }

  /** The booking stands: CONFIRMED, or flagged while it may still be. */
  get stands(): boolean {
    return (
      this.known.phase === GuardPhase.CONFIRMED || this.known.phase === GuardPhase.NEEDS_ATTENTION
    );
  }

  /** The `bookingState` query's answer: the order's one truth after CONFIRMED. */
  state(): OrderState {
    const { known, params } = this;
    return {
      orderId: this.orderId,
      phase: known.phase,
      truth: truthOf(known.phase, !this.isFinal),
      holder: 'guard',
      workflowId: workflowInfo().workflowId,
      open: !this.isFinal,
      ...defined({
        supplier: params.supplier,
        outcome: 'CONFIRMED' as const,
        bookingId: this.bookingId,
        cancelRequested: known.cancellation !== undefined,
        supplierStatus: known.supplierStatus,
        price: params.price as SupplierPrice | undefined,
        lastError: known.lastError,
        checkIn: known.checkIn,
        checkInAt: isoOf(known.checkInAt),
        checkOutAt: isoOf(known.checkOutAt),
        terms: known.terms,
        nextReconfirmationAt: this.isFinal ? undefined : isoOf(known.reconfirmAt[0]),
        reconfirmations: known.reconfirmations,
        flag: known.flag,
        autoCancel: known.autoCancel,
        cancellation: known.cancellation,
        refusal: known.refusal,
      }),
    };
  }

  details(): string {
    const { known } = this;
    const lines = [
      `**${known.phase}** — order \`${this.orderId}\`, supplier booking ${this.bookingId}`,
    ];
    if (known.terms.refundable === false) lines.push('non-refundable rate');
    else
      lines.push(
        `free cancellation until ${known.terms.freeCancellationUntil ?? 'unknown (cancelling needs acceptPenalty)'}`,
      );
    if (known.checkInAt !== undefined) lines.push(`check-in ${iso(known.checkInAt)}`);
    if (known.reconfirmAt[0] !== undefined && !this.isFinal)
      lines.push(`next reconfirmation ${iso(known.reconfirmAt[0])}`);
    if (known.autoCancel && !known.autoCancel.done)
      lines.push(
        known.autoCancel.kept
          ? 'kept by the order system (no automatic cancellation)'
          : `cancels automatically at ${known.autoCancel.at ?? '?'} unless kept`,
      );
    if (known.flag) lines.push(`flagged ${known.flag.reason}: ${known.flag.message}`);
    if (known.refusal) lines.push(`cancellation refused: ${known.refusal.message}`);
    return lines.join('\n\n');
  }

  /** Every change of the order's phase after CONFIRMED passes here. */
  enter(next: GuardPhase): void {
    this.known.phase = next;
    this.searchAttributes.write([{ key: BookingPhaseKey, value: next }]);
    setCurrentDetails(this.details());
    this.events?.phase(next, this.eventData());
  }

  /** What the guard's order events say besides their type. */
  eventData() {
    const { known, params } = this;
    const flagged =
      known.phase === GuardPhase.NEEDS_ATTENTION ||
      known.phase === GuardPhase.CANCELLED_BY_SUPPLIER;
    const reason = flagged ? known.flag?.message : known.cancellation?.reason;
    return {
      truth: truthOf(known.phase, !this.isFinal),
      bookingId: this.bookingId,
      ...defined({
        supplierStatus: known.supplierStatus,
        price: params.price as SupplierPrice | undefined,
        freeCancellationUntil: known.terms.freeCancellationUntil,
        reason,
      }),
    };
  }

  /** When to announce that free cancellation ends: once, while the booking stands. */
  endingNoticeAt(): number | undefined {
    const { known } = this;
    if (!this.events || known.endingAnnouncedAt !== undefined || !this.stands) return undefined;
    return endingNoticeTime(parseInstant(known.terms.freeCancellationUntil), Date.now());
  }

  /** Announces `order.free_cancellation_ending` (with the automatic cancellation, if armed). */
  announceEnding(): void {
    const { known } = this;
    known.endingAnnouncedAt = Date.now();
    const at = this.autoCancelAt();
    this.events?.deliver(OrderEventType.FREE_CANCELLATION_ENDING, {
      ...this.eventData(),
      phase: known.phase,
      reason:
        at !== undefined
          ? `free cancellation ends at ${known.terms.freeCancellationUntil}; cancelled automatically at ${iso(at)} unless kept`
          : `free cancellation ends at ${known.terms.freeCancellationUntil}`,
    });
  }

  flag(reason: GuardFlag['reason'], message: string, mark = true): void {
    this.known.flag = { reason, message, at: iso(Date.now()) };
    if (mark)
      this.searchAttributes.write([{ key: ReconfirmationKey, value: ReconfirmationMark.FLAGGED }]);
    this.#flags.add(1, { reason });
  }

  setStatus(status: string): void {
    this.known.supplierStatus = status;
    this.searchAttributes.write([{ key: SupplierStatusKey, value: status }]);
  }

  /** Arms or disarms `autoCancelBeforePenalty` from the current terms. */
  armAutoCancel(): void {
    if (!this.policy.autoCancelBeforePenalty) return;
    const at = autoCancelTime(this.known.terms, this.policy.autoCancelMargin);
    this.known.autoCancel = {
      kept: this.known.autoCancel?.kept ?? false,
      done: this.known.autoCancel?.done ?? false,
      ...defined({ at: isoOf(at) }),
    };
  }

  /** When the automatic cancellation runs, while it is armed and the booking stands. */
  autoCancelAt(): number | undefined {
    const a = this.known.autoCancel;
    if (!a || a.kept || a.done || a.at === undefined || !this.stands) return undefined;
    const at = parseInstant(a.at);
    if (at === undefined || !this.events) return at;
    // Order events on: never before the order system was told and had time to answer.
    const told = this.known.endingAnnouncedAt;
    if (told === undefined) return undefined;
    return autoCancelAfterNotice(
      at,
      told,
      parseInstant(this.known.terms.freeCancellationUntil),
      durationToMs(this.policy.autoCancelNotice) ?? 0,
    );
  }

  decide(acceptPenalty: boolean) {
    return decideCancellation({
      orderId: this.orderId,
      now: Date.now(),
      phase: this.known.phase,
      terms: this.known.terms,
      checkInAt: this.known.checkInAt,
      acceptPenalty,
    });
  }
}
