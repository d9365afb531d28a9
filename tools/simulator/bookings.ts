/**
 * The supplier's memory: price-check tokens, bookings and their statuses, and the per-option
 * state of scenarios (sold-out rooms, price-check 503 counts). Status transitions live here,
 * driven by the booking's scenario and by the retrieves and cancels it receives.
 */
import type { BookingRequest } from './booking-request';
import type { Prng } from './prng';
import type { OptionSpec, ScenarioName } from './scenarios';

export const BOOKING_STATUSES = [
  'PROCESSING',
  'WAITING_CONFIRMATION',
  'CONFIRMED',
  'NOT_CONFIRMED',
  'PENDING',
  'CANCELLED',
] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/** A price-check answer that can be booked. */
export interface PriceToken {
  readonly token: string;
  readonly optionId: string;
  readonly spec: OptionSpec;
  readonly companyKey: string;
  readonly netCents: number;
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
}

/** How the booking call was answered. */
export type BookingAnswer = 'sent' | 'lost' | 'delayed';

export interface StoredBooking {
  readonly bookingId: number;
  readonly companyKey: string;
  readonly token: string;
  readonly optionId: string;
  readonly spec: OptionSpec;
  readonly request: BookingRequest;
  readonly netCents: number;
  readonly createdAtMs: number;
  status: BookingStatus;
  answer: BookingAnswer;
  retrieves: number;
  cancelRequests: number;
  /** Retrieves since the first cancel (cancel-202-resolves counts from the cancel). */
  retrievesSinceCancel: number;
  cancelledBy?: 'client' | 'supplier';
}

/** What a cancel did. */
export type CancelOutcome =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'already-cancelled' }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'accepted' };

const isFinal = (s: BookingStatus) => s === 'CANCELLED' || s === 'NOT_CONFIRMED';

/** The status a booking answers with at creation, by scenario. */
export function initialStatus(scenario: ScenarioName): BookingStatus {
  switch (scenario) {
    case 'confirm-after-polls':
    case 'not-confirmed':
      return 'PROCESSING';
    case 'pending-long':
      return 'PENDING';
    default:
      return 'CONFIRMED';
  }
}

/** Sweep expired tokens once this many have been issued since the last sweep. */
const TOKEN_SWEEP_EVERY = 10_000;

export class BookingStore {
  private readonly tokens = new Map<string, PriceToken>();
  private readonly bookings = new Map<number, StoredBooking>();
  private readonly soldOut = new Set<string>();
  private readonly priceCheckCalls = new Map<string, number>();
  private tokenCount = 0;
  private nextBookingId: number;

  constructor(firstBookingId: number) {
    this.nextBookingId = firstBookingId;
  }

  /** Forgets everything except the booking id counter (ids are never reused by one process). */
  reset(): void {
    this.tokens.clear();
    this.bookings.clear();
    this.soldOut.clear();
    this.priceCheckCalls.clear();
  }

  /** Counts a price check of a `price-check-5xx` option; returns the call's number (1-based). */
  countPriceCheck(optionId: string): number {
    const n = (this.priceCheckCalls.get(optionId) ?? 0) + 1;
    this.priceCheckCalls.set(optionId, n);
    return n;
  }

  isSoldOut(optionId: string): boolean {
    return this.soldOut.has(optionId);
  }

  markSoldOut(optionId: string): void {
    this.soldOut.add(optionId);
  }

  issueToken(
    fields: Omit<PriceToken, 'token' | 'issuedAtMs' | 'expiresAtMs'>,
    nowMs: number,
    ttlMs: number,
    prng: Prng,
  ): PriceToken {
    this.tokenCount += 1;
    if (this.tokenCount % TOKEN_SWEEP_EVERY === 0) {
      for (const [key, t] of this.tokens) if (t.expiresAtMs <= nowMs) this.tokens.delete(key);
    }
    const token: PriceToken = {
      ...fields,
      token: `bk_${this.tokenCount}_${prng.hex(8)}`,
      issuedAtMs: nowMs,
      expiresAtMs: nowMs + ttlMs,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  /** The company's unexpired token, if any (another company's token is as good as unknown). */
  findToken(token: string, companyKey: string, nowMs: number): PriceToken | undefined {
    const t = this.tokens.get(token);
    if (t === undefined || t.companyKey !== companyKey || t.expiresAtMs <= nowMs) return undefined;
    return t;
  }

  create(token: PriceToken, request: BookingRequest, nowMs: number): StoredBooking {
    const booking: StoredBooking = {
      bookingId: this.nextBookingId++,
      companyKey: token.companyKey,
      token: token.token,
      optionId: token.optionId,
      spec: token.spec,
      request,
      netCents: token.netCents,
      createdAtMs: nowMs,
      status: initialStatus(token.spec.scenario),
      answer: 'sent',
      retrieves: 0,
      cancelRequests: 0,
      retrievesSinceCancel: 0,
    };
    this.bookings.set(booking.bookingId, booking);
    return booking;
  }

  /** Every booking, oldest first (inspection). */
  all(): StoredBooking[] {
    return [...this.bookings.values()];
  }

  private owned(bookingId: number, companyKey: string): StoredBooking | undefined {
    const b = this.bookings.get(bookingId);
    return b !== undefined && b.companyKey === companyKey ? b : undefined;
  }

  /**
   * A retrieve by the owning company: counts it, moves the status along the scenario, and
   * returns the booking. Another company's booking is `undefined`, as if it did not exist.
   */
  retrieve(bookingId: number, companyKey: string): StoredBooking | undefined {
    const b = this.owned(bookingId, companyKey);
    if (b === undefined) return undefined;
    b.retrieves += 1;
    if (b.cancelRequests > 0) b.retrievesSinceCancel += 1;
    if (!isFinal(b.status)) advance(b);
    return b;
  }

  cancel(bookingId: number, companyKey: string): CancelOutcome {
    const b = this.owned(bookingId, companyKey);
    if (b === undefined) return { kind: 'not-found' };
    if (b.status === 'CANCELLED') return { kind: 'already-cancelled' };
    b.cancelRequests += 1;
    switch (b.spec.scenario) {
      case 'cancel-202-never':
        return { kind: 'accepted' };
      case 'cancel-202-resolves':
        if (b.spec.param <= b.retrievesSinceCancel) cancelIt(b, 'client');
        return { kind: 'accepted' };
      default:
        cancelIt(b, 'client');
        return { kind: 'cancelled' };
    }
  }
}

function cancelIt(b: StoredBooking, by: 'client' | 'supplier'): void {
  b.status = 'CANCELLED';
  b.cancelledBy = by;
}

/** The status move a retrieve makes, by scenario (`n` is the booking's retrieve count). */
function advance(b: StoredBooking): void {
  const n = b.retrieves;
  const param = b.spec.param;
  switch (b.spec.scenario) {
    case 'confirm-after-polls':
      if (n >= param) b.status = 'CONFIRMED';
      // The first half of the wait reads PROCESSING, the rest WAITING_CONFIRMATION.
      else b.status = n <= Math.ceil((param - 1) / 2) ? 'PROCESSING' : 'WAITING_CONFIRMATION';
      return;
    case 'pending-long':
      if (n > param) b.status = 'CONFIRMED';
      return;
    case 'not-confirmed':
      if (n >= param) b.status = 'NOT_CONFIRMED';
      return;
    case 'supplier-cancels':
      if (n >= param) cancelIt(b, 'supplier');
      return;
    case 'cancel-202-resolves':
      if (b.cancelRequests > 0 && b.retrievesSinceCancel >= param) cancelIt(b, 'client');
      return;
    default:
      return;
  }
}
