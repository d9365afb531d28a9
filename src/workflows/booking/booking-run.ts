/**
 * The state of one `bookRoom` run, in one place: every field a step or a message handler reads or
 * writes, and the small mutators that keep the search attributes and the UI's details in step with
 * it. Steps (book-room-steps.ts) and handlers (book-room-messages.ts) take the run; nothing else
 * holds booking state.
 */
import { setCurrentDetails, type CancellationScope } from '@temporalio/workflow';
import type { BookingSnapshot, PriceCheckResult } from '../../activities/booking';
import type { StayTerms } from '../../activities/guard';
import type { LocalRead } from '../../activities/local-reads';
import type {
  BookRoomInput,
  BookRoomResult,
  BookingError,
  BookingState,
  PriceDecision,
  SupplierPrice,
} from '../../shared/booking-contract';
import { BookingOutcome, BookingPhase } from '../../shared/booking-values';
import { truthOf } from '../../shared/order-truth';
import type { GuardBookingInput } from '../../shared/guard-contract';
import type { OrderEventOutbox } from '../order-events/order-event-outbox';
import { SearchAttributeWriter } from '../search-attribute-writer';
import {
  BookingPhaseKey,
  SupplierBookingIdKey,
  SupplierStatusKey,
} from '../../shared/search-attributes';

const FINAL: ReadonlySet<string> = new Set(Object.values(BookingOutcome));

/** An outcome without the order id (the run adds it). */
export type Final = Omit<BookRoomResult, 'orderId'>;

/** An operator's answer to a reconciliation. */
export type Resolution =
  { readonly bookingId: number; readonly snapshot: BookingSnapshot } | { readonly noBooking: true };

export class BookingRun {
  readonly orderId: string;
  /** The field the starter validated against; absent in older inputs (then the worker's setting). */
  readonly orderIdField: string | undefined;
  phase: BookingState['phase'] = BookingPhase.PRICE_CHECK;
  supplierStatus: string | undefined;
  bookingId: number | undefined;
  price: SupplierPrice | undefined;
  lastError: BookingState['lastError'];
  pendingDecision: PriceDecision | undefined;
  /** A person's answer to `approvePriceChange`, while `AWAITING_APPROVAL`. */
  decision: boolean | undefined;
  cancelRequested = false;
  cancelReason: string | undefined;
  resolution: Resolution | undefined;
  /** A `resolveReconciliation` is checking the booking it names. */
  resolving = false;
  /** The confirmation polls, cancelled by a cancellation request. */
  pollScope: CancellationScope | undefined;
  outcome: BookingOutcome | undefined;
  /** The outcome's reason, once there is one (for the order event). */
  reason: string | undefined;
  /** Order events are on for this run: phase changes are announced (order-event-outbox.ts). */
  events: OrderEventOutbox | undefined;
  /** The stay and cancellation terms of the last poll's read, handed to the guard. */
  terms: StayTerms | undefined;
  /** The first task's local price check (one task per step), until the price step takes it. */
  localPrice: LocalRead<PriceCheckResult> | undefined;
  /** Every search attribute write of the run goes through here. */
  sa = new SearchAttributeWriter(false);
  /** The decision, once the run has one (what `bookRoom` returns; `outcome` answers with it). */
  decided: BookRoomResult | undefined;
  /** The guard's input once this run guards its CONFIRMED booking itself (`guardHere`). */
  guarding: GuardBookingInput | undefined;

  /**
   * The run takes one workflow task per step (book-room.ts `ONE_TASK_PER_STEP`): merged search
   * attribute writes, local reads within the worker's budget, the guard started in the deciding
   * task. False for runs recorded before it, which replay as they ran.
   */
  get oneTaskPerStep(): boolean {
    return this.sa.merged;
  }

  constructor(
    input: BookRoomInput,
    /**
     * Set when the run guards its CONFIRMED booking itself (`bookRoomAndGuard`): called with the
     * guard's input in the activation that decided CONFIRMED, instead of starting `guardBooking`.
     */
    readonly guardHere?: (guard: GuardBookingInput) => void,
  ) {
    this.orderId = typeof input?.orderId === 'string' ? input.orderId : '(invalid)';
    this.orderIdField = typeof input?.orderIdField === 'string' ? input.orderIdField : undefined;
  }

  /** The run lives on as its booking's guard once CONFIRMED (see {@link guardHere}). */
  get livesOn(): boolean {
    return this.guardHere !== undefined;
  }

  /** The `bookingState` query's answer. */
  state(): BookingState {
    return {
      orderId: this.orderId,
      phase: this.phase,
      cancelRequested: this.cancelRequested,
      ...(this.supplierStatus !== undefined ? { supplierStatus: this.supplierStatus } : {}),
      ...(this.bookingId !== undefined ? { bookingId: this.bookingId } : {}),
      ...(this.price !== undefined ? { price: this.price } : {}),
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
      ...(this.pendingDecision !== undefined && this.phase === BookingPhase.AWAITING_APPROVAL
        ? { pendingDecision: this.pendingDecision }
        : {}),
      ...(this.outcome !== undefined ? { outcome: this.outcome } : {}),
    };
  }

  /** Whether the booking has its outcome. */
  get ended(): boolean {
    return FINAL.has(this.phase);
  }

  /** The workflow's current details in the UI. */
  details(): string {
    const lines = [`**${this.phase}** — order \`${this.orderId}\``];
    if (this.bookingId !== undefined)
      lines.push(`supplier booking ${this.bookingId} (${this.supplierStatus ?? '?'})`);
    if (this.price) lines.push(`price ${this.price.net} ${this.price.currency}`);
    if (this.pendingDecision)
      lines.push(
        `awaiting approval of ${this.pendingDecision.status} until ${this.pendingDecision.deadline}`,
      );
    if (this.lastError) lines.push(`last error: ${this.lastError.code}`);
    return lines.join('\n\n');
  }

  /** Every change of the order's phase passes here (search attribute and details with it). */
  enter(next: BookingState['phase']): void {
    this.phase = next;
    this.sa.write([{ key: BookingPhaseKey, value: next }]);
    setCurrentDetails(this.details());
    this.events?.phase(next, {
      truth: truthOf(next, !this.ended),
      ...(this.bookingId !== undefined ? { bookingId: this.bookingId } : {}),
      ...(this.supplierStatus !== undefined ? { supplierStatus: this.supplierStatus } : {}),
      ...(this.price !== undefined ? { price: this.price } : {}),
      ...(this.reason !== undefined
        ? { reason: this.reason }
        : this.lastError !== undefined
          ? { reason: `${this.lastError.code}: ${this.lastError.message}` }
          : {}),
    });
  }

  /** From here on the run takes one workflow task per step (see {@link oneTaskPerStep}). */
  takeOneTaskPerStep(): void {
    this.sa = new SearchAttributeWriter(true);
  }

  noteError(error: BookingError): void {
    this.lastError = { ...error, at: new Date().toISOString() };
  }

  setBooking(id: number, status: string): void {
    this.bookingId = id;
    this.supplierStatus = status;
    this.sa.write([
      { key: SupplierBookingIdKey, value: id },
      { key: SupplierStatusKey, value: status },
    ]);
  }

  /** Rule 8: the `cancel` update and a cancellation from Temporal both come here. */
  requestCancel(reason: string | undefined): void {
    if (this.cancelRequested || this.ended) return;
    this.cancelRequested = true;
    this.cancelReason = reason;
    this.pollScope?.cancel();
    setCurrentDetails(this.details());
  }

  cancelledBeforeBooking(): Final {
    return {
      outcome: BookingOutcome.CANCELLED,
      reason: `cancelled before any supplier booking was made${this.cancelReason ? `: ${this.cancelReason}` : ''}`,
    };
  }

  cancelWhy(): string {
    return `cancelled on request${this.cancelReason ? `: ${this.cancelReason}` : ''}`;
  }
}
