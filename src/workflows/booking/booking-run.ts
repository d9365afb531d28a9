/** The booking's state until its decision, and the mutators that keep its writes in step. */
import { setCurrentDetails, workflowInfo, type CancellationScope } from '@temporalio/workflow';
import type { BookingSnapshot, PriceCheckResult } from '../../activities/booking';
import type { StayTerms } from '../../activities/guard';
import type { AccountRefusal, LocalRead, NotRead } from '../../activities/local-reads';
import type {
  BookRoomInput,
  BookRoomResult,
  BookingError,
  BookingState,
  PriceDecision,
  SupplierPrice,
} from '../../shared/booking-contract';
import { BookingPhase, type BookingOutcome } from '../../shared/booking-values';
import { truthOf } from '../../shared/order-truth';
import type { GuardInput, OrderState } from '../../shared/guard-contract';
import type { GuardRun } from '../guard/guard-run';
import type { OrderEventOutbox } from '../../order-events/workflows/outbox';
import { SearchAttributeWriter, type SearchAttributes } from '../search-attribute-writer';
import {
  BookingPhaseKey,
  SupplierBookingIdKey,
  SupplierStatusKey,
} from '../../shared/search-attributes';
import { defined } from '../../shared/defined';
import { asOutcome } from './earlier-runs-decision';

/** An operator's answer to a reconciliation. */
export type Resolution =
  { readonly bookingId: number; readonly snapshot: BookingSnapshot } | { readonly noBooking: true };

/** A `cancel`'s answer: taken (carried out by the run), or refused with a code and words. */
export type CancelAnswer =
  | { readonly taken: true }
  | { readonly refused: { readonly code: string; readonly message: string } };
export const CANCEL_TAKEN: CancelAnswer = { taken: true };
export const refusal = (code: string, message: string): CancelAnswer => ({
  refused: { code, message },
});

export class BookingRun {
  readonly orderId: string;
  /** The field the starter validated against; absent in older inputs (then the worker's setting). */
  readonly orderIdField: string | undefined;
  /** The supplier account every call of the order goes to (absent: the default account). */
  readonly supplier: string | undefined;
  phase: BookingState['phase'] = BookingPhase.PRICE_CHECK;
  supplierStatus: string | undefined;
  bookingId: number | undefined;
  price: SupplierPrice | undefined;
  lastError: BookingState['lastError'];
  pendingDecision: PriceDecision | undefined;
  /** A person's answer to `approvePriceChange`, while `AWAITING_APPROVAL`. */
  approval: boolean | undefined;
  cancelRequested = false;
  cancelReason: string | undefined;
  /** The `cancel` request's `acceptPenalty` (a booking taken over from an earlier run needs it). */
  acceptPenalty = false;
  /** What a `cancel` gets once the run knows the order (earlier-runs.ts); one before it waits. */
  cancelAnswer: CancelAnswer | undefined;
  /** The booking call is marked (`createBookingMarked`); false in runs recorded before it. */
  bookingCallMarked = false;
  resolution: Resolution | undefined;
  /** A `resolveReconciliation` is checking the booking it names. */
  resolving = false;
  /** The confirmation polls, cancelled by a cancellation request. */
  pollScope: CancellationScope | undefined;
  outcome: BookingOutcome | undefined;
  /** The outcome's reason, once there is one (for the order event). */
  reason: string | undefined;
  /** Order events are on for this run: phase changes are announced (order-events' outbox.ts). */
  events: OrderEventOutbox | undefined;
  /** The stay and cancellation terms of the last poll's read, handed to the guard. */
  terms: StayTerms | undefined;
  /** The order's account takes no new order (the first task's local read said why). */
  accountRefused: AccountRefusal | undefined;
  /** The first task's local price check (one task per step), until the price step takes it. */
  localPrice: LocalRead<PriceCheckResult> | NotRead | undefined;
  /** It answers an earlier run's decision: no `BookingOutcome` written, so visibility counts one. */
  answersEarlier = false;
  /** The decision, once the run has one (the `outcome` update answers with it). */
  decided: BookRoomResult | undefined;
  /** The order's guard and its input, from the activation that decided CONFIRMED. */
  guarding: { readonly guard: GuardRun; readonly input: GuardInput } | undefined;

  constructor(
    input: Pick<BookRoomInput, 'orderId' | 'orderIdField' | 'supplier'>,
    /** Every search attribute write of the order goes through here. */
    readonly searchAttributes: SearchAttributes = new SearchAttributeWriter(),
  ) {
    this.orderId = typeof input?.orderId === 'string' ? input.orderId : '(invalid)';
    this.orderIdField = typeof input?.orderIdField === 'string' ? input.orderIdField : undefined;
    this.supplier = typeof input?.supplier === 'string' ? input.supplier : undefined;
  }

  /** The `bookingState` query's answer, and the `cancel` update's, until the decision. */
  state(): OrderState {
    const open = this.outcome === undefined;
    const awaiting = this.phase === BookingPhase.AWAITING_APPROVAL;
    return {
      orderId: this.orderId,
      truth: truthOf(this.phase, open),
      holder: 'booking',
      workflowId: workflowInfo().workflowId,
      open,
      ...defined({
        supplier: this.supplier,
        phase: this.phase,
        cancelRequested: this.cancelRequested,
        supplierStatus: this.supplierStatus,
        bookingId: this.bookingId,
        price: this.price,
        lastError: this.lastError,
        pendingDecision: awaiting ? this.pendingDecision : undefined,
        outcome: this.outcome,
      }),
    };
  }

  get isDecided(): boolean {
    return asOutcome(this.phase) !== undefined;
  }

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
    this.searchAttributes.write([{ key: BookingPhaseKey, value: next }]);
    setCurrentDetails(this.details());
    this.events?.phase(next, {
      truth: truthOf(next, !this.isDecided),
      ...defined({
        bookingId: this.bookingId,
        supplierStatus: this.supplierStatus,
        price: this.price,
        reason:
          this.reason ?? (this.lastError && `${this.lastError.code}: ${this.lastError.message}`),
      }),
    });
  }

  noteError(error: BookingError): void {
    this.lastError = { ...error, at: new Date().toISOString() };
  }

  setBooking(id: number, status: string): void {
    this.bookingId = id;
    this.supplierStatus = status;
    this.searchAttributes.write([
      { key: SupplierBookingIdKey, value: id },
      { key: SupplierStatusKey, value: status },
    ]);
  }

  /** Rule 8: the `cancel` update and a cancellation from Temporal both come here. */
  requestCancel(reason: string | undefined, acceptPenalty = false): void {
    if (this.cancelRequested || this.isDecided) return;
    this.cancelRequested = true;
    this.cancelReason = reason;
    this.acceptPenalty = acceptPenalty;
    this.pollScope?.cancel();
    setCurrentDetails(this.details());
  }

  cancelWhy(): string {
    return `cancelled on request${this.cancelReason ? `: ${this.cancelReason}` : ''}`;
  }
}
