/** The guard's decisions, pure and unit-tested (test/workflows/guard-decisions.test.ts). */
import { parseInstant } from '../../shared/dates';
import type { CancellationTerms, FlagReason } from '../../shared/guard-contract';
import { ENDING_NOTICE_MS, GuardPhase } from '../../shared/guard-values';
import { durationToMs } from '../../shared/duration';
import { defined } from '../../shared/defined';

const DAY_MS = 86_400_000;
export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOf = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : iso(ms);

/**
 * The free-cancellation deadline: the earliest of the supplier's (`penalty_date`) and the order
 * system's, since one too late costs money and one too early nothing. Non-refundable: none.
 */
export function cancellationTerms(input: {
  readonly supplierPenaltyDate?: unknown;
  readonly refundable?: boolean | undefined;
  readonly orderDeadline?: string | undefined;
}): CancellationTerms {
  if (input.refundable === false) return { refundable: false };
  const supplier = input.refundable === true ? parseInstant(input.supplierPenaltyDate) : undefined;
  const order = parseInstant(input.orderDeadline);
  const refundable = input.refundable !== undefined ? { refundable: input.refundable } : {};
  if (supplier === undefined && order === undefined) return refundable;
  if (supplier === undefined)
    return { ...refundable, freeCancellationUntil: iso(order!), source: 'order' };
  if (order === undefined)
    return { ...refundable, freeCancellationUntil: iso(supplier), source: 'supplier' };
  return {
    ...refundable,
    freeCancellationUntil: iso(Math.min(supplier, order)),
    source: supplier === order ? 'supplier+order' : supplier < order ? 'supplier' : 'order',
  };
}

/**
 * The stay's instants: given ones win; else check-in at 00:00 UTC of its date (the earliest) and
 * check-out at the end of its date, UTC (the guard never closes before the stay ended).
 */
export function stayInstants(input: {
  readonly checkIn?: string | undefined;
  readonly checkOut?: string | undefined;
  readonly checkInAt?: string | undefined;
  readonly checkOutAt?: string | undefined;
}): { checkInAt?: number; checkOutAt?: number } {
  const checkInAt = parseInstant(input.checkInAt) ?? parseInstant(input.checkIn);
  const checkOutDay = parseInstant(input.checkOut);
  const checkOutAt =
    parseInstant(input.checkOutAt) ??
    (checkOutDay !== undefined ? checkOutDay + DAY_MS : undefined);
  return { ...defined({ checkInAt, checkOutAt }) };
}

/** When to reconfirm: `before` each duration ahead of check-in, earliest first, no duplicates. */
export function reconfirmationTimes(
  checkInAt: number | undefined,
  before: readonly (string | number)[],
): number[] {
  if (checkInAt === undefined) return [];
  const times = before
    .map((d) => durationToMs(d))
    .filter((ms): ms is number => ms !== undefined && ms > 0)
    .map((ms) => checkInAt - ms);
  return [...new Set(times)].sort((a, b) => a - b);
}

/** When `autoCancelBeforePenalty` runs: `margin` before free cancellation ends. */
export function autoCancelTime(
  terms: CancellationTerms,
  margin: string | number,
): number | undefined {
  const deadline = parseInstant(terms.freeCancellationUntil);
  if (deadline === undefined) return undefined;
  return deadline - (durationToMs(margin) ?? 0);
}

export type CancellationDecision =
  | { readonly kind: 'cancel'; readonly penalty: boolean }
  /** Already cancelled or cancelling: nothing new to do (cancelling twice is harmless). */
  | { readonly kind: 'already' }
  | {
      readonly kind: 'refuse';
      readonly code: 'ENDED' | 'CHECK_IN_PASSED' | 'PENALTY';
      readonly message: string;
    };

export function decideCancellation(input: {
  readonly orderId: string;
  readonly now: number;
  readonly phase: GuardPhase;
  readonly terms: CancellationTerms;
  readonly checkInAt?: number | undefined;
  readonly acceptPenalty: boolean;
}): CancellationDecision {
  const { orderId, now, phase, terms, checkInAt, acceptPenalty } = input;
  const refuse = (code: 'ENDED' | 'CHECK_IN_PASSED' | 'PENALTY', message: string) =>
    ({ kind: 'refuse', code, message }) as const;
  if (phase === GuardPhase.CANCELLED || phase === GuardPhase.CANCELLING) return { kind: 'already' };
  if (phase === GuardPhase.CANCELLED_BY_SUPPLIER)
    return refuse(
      'ENDED',
      `Order ${orderId} was cancelled by the supplier: nothing is left to cancel`,
    );
  if (phase === GuardPhase.CHECKED_OUT)
    return refuse('ENDED', `Order ${orderId}: the stay is over, nothing is left to cancel`);
  if (checkInAt !== undefined && now >= checkInAt) {
    return refuse(
      'CHECK_IN_PASSED',
      `Order ${orderId}: check-in (${iso(checkInAt)}) has passed; a booking can be cancelled only before check-in`,
    );
  }
  const deadline = parseInstant(terms.freeCancellationUntil);
  let why: string | undefined;
  if (terms.refundable === false) why = 'the rate is non-refundable';
  else if (deadline === undefined) why = 'the free-cancellation deadline is not known';
  else if (now >= deadline) why = `free cancellation ended at ${iso(deadline)}`;
  if (why === undefined) return { kind: 'cancel', penalty: false };
  if (acceptPenalty) return { kind: 'cancel', penalty: true };
  return refuse(
    'PENALTY',
    `Order ${orderId}: ${why}, so cancelling now may cost a penalty. Send acceptPenalty: true (CLI --accept-penalty) to cancel anyway`,
  );
}

/** What the guard learned from one read of the booking. */
export type BookingRead =
  | { readonly kind: 'status'; readonly status: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'unreadable'; readonly code: string; readonly message: string };

export type ReconfirmationVerdict =
  | { readonly kind: 'confirmed' }
  /** CANCELLED after we asked for it: our cancellation completed. */
  | { readonly kind: 'cancelled-by-us' }
  | { readonly kind: 'cancelled-by-supplier' }
  | { readonly kind: 'flag'; readonly reason: FlagReason; readonly message: string };

export function reconfirmationVerdict(
  read: BookingRead,
  weCancelled: boolean,
  bookingId: number,
): ReconfirmationVerdict {
  const flag = (reason: FlagReason, message: string) =>
    ({ kind: 'flag', reason, message }) as const;
  if (read.kind === 'not-found')
    return flag('NOT_FOUND', `the supplier does not know booking ${bookingId} any more`);
  if (read.kind === 'unreadable')
    return flag('UNREADABLE', `booking ${bookingId} could not be read: ${read.code}`);
  if (read.status === 'CONFIRMED') return { kind: 'confirmed' };
  if (read.status === 'CANCELLED')
    return weCancelled ? { kind: 'cancelled-by-us' } : { kind: 'cancelled-by-supplier' };
  return flag('NOT_CONFIRMED', `booking ${bookingId} reads ${read.status}, not CONFIRMED`);
}

/** An automatic cancellation runs at least this long before free cancellation ends. */
const BEFORE_DEADLINE_MS = 60_000;

/** When to announce that free cancellation ends (`order.free_cancellation_ending`), if ever. */
export function endingNoticeTime(deadline: number | undefined, now: number): number | undefined {
  if (deadline === undefined || deadline <= now) return undefined;
  return Math.max(now, deadline - ENDING_NOTICE_MS);
}

/**
 * When an automatic cancellation announced at `announcedAt` may run: not before the order system
 * had `noticeMs` to answer, but before free cancellation ends when the deadline allows it.
 */
export function autoCancelAfterNotice(
  autoCancelAt: number,
  announcedAt: number,
  deadline: number | undefined,
  noticeMs: number,
): number {
  const noticed = announcedAt + noticeMs;
  if (noticed <= autoCancelAt) return autoCancelAt;
  if (deadline === undefined) return noticed;
  return Math.max(autoCancelAt, Math.min(noticed, deadline - BEFORE_DEADLINE_MS));
}

type WakeKind = 'ending-notice' | 'reconfirm' | 'auto-cancel' | 'check-out';

/** What the guard's timer waits for, by wake: its summary in the Temporal UI. */
export const WAKE_SUMMARIES: Readonly<Record<WakeKind, string>> = {
  'ending-notice': 'Free cancellation ending soon: notice to the order system',
  reconfirm: 'Next reconfirmation of the booking at the supplier',
  'auto-cancel': 'Automatic cancellation before free cancellation ends',
  'check-out': 'Check-out: the guard ends',
};

/** The next thing the guard waits for, or nothing left but the end of the stay. */
export function nextWake(input: {
  readonly reconfirmAt: readonly number[];
  readonly endingNoticeAt?: number | undefined;
  readonly autoCancelAt?: number | undefined;
  readonly checkOutAt?: number | undefined;
}): { at: number; what: WakeKind } | undefined {
  const candidates: { at: number; what: WakeKind }[] = [];
  if (input.endingNoticeAt !== undefined)
    candidates.push({ at: input.endingNoticeAt, what: 'ending-notice' });
  const first = input.reconfirmAt[0];
  if (first !== undefined) candidates.push({ at: first, what: 'reconfirm' });
  if (input.autoCancelAt !== undefined)
    candidates.push({ at: input.autoCancelAt, what: 'auto-cancel' });
  if (input.checkOutAt !== undefined) candidates.push({ at: input.checkOutAt, what: 'check-out' });
  // Ties: tell before cancelling, cancel before a read, read before closing.
  const rank = { 'ending-notice': 0, 'auto-cancel': 1, reconfirm: 2, 'check-out': 3 } as const;
  candidates.sort((a, b) => a.at - b.at || rank[a.what] - rank[b.what]);
  return candidates[0];
}
