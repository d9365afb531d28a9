/**
 * The operator's daily views as Temporal visibility queries, for the UI's workflow filter or
 * `temporal workflow list --query "…"`. Visibility takes absolute times only, so each view is
 * built for a moment (`now`). A test runs each against a real server.
 */
import {
  BOOKING_WORKFLOWS as BOOKINGS,
  BOOK_ROOM_WORKFLOW,
  BookingOutcome,
  BookingPhase,
} from '../shared/booking-contract';
import {
  ENDING_NOTICE_MS,
  GUARDING_WORKFLOWS as GUARDS,
  GuardPhase,
  ReconfirmationMark,
} from '../shared/guard-contract';
import { ORDER_EVENTS_FAILING_QUERY } from '../order-events/contract/delivery';
import { inEveryDivision } from '../shared/search-attributes';

export interface SavedQuery {
  /** Short name for the saved view. */
  readonly name: string;
  /** What an operator does with it. */
  readonly purpose: string;
  readonly query: string;
}

export interface SavedQueryOptions {
  /** @default new Date() */
  readonly now?: Date;
  /** "Waiting for approval for longer than this", minutes. @default 10 */
  readonly approvalWaitMinutes?: number;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** Midnight UTC of `d`'s UTC date, plus `days`. */
const utcDay = (d: Date, days = 0) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days));

/**
 * Decided since `t`, as the workflow records it (a CONFIRMED order closes at check-out); an
 * earlier version's bookRoom recorded none and closed at its decision.
 */
const decidedSince = (t: Date) =>
  `(BookingDecidedAt >= '${iso(t)}' OR (BookingDecidedAt IS NULL AND WorkflowType = '${BOOK_ROOM_WORKFLOW}' AND CloseTime >= '${iso(t)}'))`;
const RUNNING = `ExecutionStatus = 'Running'`;

/** Bookings waiting for a person to look, whatever the moment. */
const WAITING: readonly SavedQuery[] = [
  {
    name: 'Needs reconciliation',
    purpose:
      'Bookings whose booking call had an ambiguous result: find the supplier booking by order id, then `resolve`.',
    query: `${BOOKINGS} AND ${RUNNING} AND BookingPhase = '${BookingPhase.NEEDS_RECONCILIATION}'`,
  },
  {
    name: 'Supplier booking unreadable',
    purpose:
      'Bookings whose supplier booking could not be read for a while (still polled until the deadline): check the supplier.',
    query: `${BOOKINGS} AND ${RUNNING} AND BookingPhase = '${BookingPhase.STATUS_UNREADABLE}'`,
  },
];

/** Flags and failures to act on, whatever the moment. */
const FLAGGED: readonly SavedQuery[] = [
  {
    name: 'Reconfirmation flagged',
    purpose:
      'Confirmed bookings a reconfirmation found cancelled by the supplier, unknown or not CONFIRMED: rebook or call the hotel.',
    query: `${GUARDS} AND Reconfirmation = '${ReconfirmationMark.FLAGGED}'`,
  },
  {
    name: 'Cancellations the supplier never confirmed',
    purpose:
      'cancelBooking runs that ended STILL_ACTIVE, and guarded orders whose cancellation the supplier has not confirmed (CANCELLATION_PENDING): the supplier booking may still stand.',
    query: `((WorkflowType = 'cancelBooking' AND BookingOutcome = 'STILL_ACTIVE') OR (${GUARDS} AND BookingPhase = '${GuardPhase.CANCELLATION_PENDING}'))`,
  },
  {
    name: 'Order events failing',
    purpose:
      "Orders whose events the order system's endpoint has not taken (retried with backoff, or undelivered after 72 h): the endpoint's delivery, holding many (`hotel-booking events list` shows each order), and orders' own. Fix the endpoint, then `hotel-booking events redeliver <orderId>`.",
    query: ORDER_EVENTS_FAILING_QUERY,
  },
];

/** The daily views, for `now`. */
export function savedQueries(options: SavedQueryOptions = {}): SavedQuery[] {
  const now = options.now ?? new Date();
  const wait = options.approvalWaitMinutes ?? 10;
  const at = (ms: number) => iso(new Date(now.getTime() + ms));
  const today = utcDay(now);
  const views: SavedQuery[] = [
    ...WAITING,
    {
      name: `Awaiting approval > ${wait} min`,
      purpose:
        'Price or policy changes nobody has decided on (started before the cutoff: the phase has no timestamp of its own).',
      query: `${BOOKINGS} AND ${RUNNING} AND BookingPhase = '${BookingPhase.AWAITING_APPROVAL}' AND StartTime < '${at(-wait * 60_000)}'`,
    },
    {
      name: 'Confirmed today',
      purpose: 'Bookings the supplier confirmed since midnight UTC.',
      query: `${BOOKINGS} AND BookingOutcome = '${BookingOutcome.CONFIRMED}' AND ${decidedSince(today)}`,
    },
    {
      name: 'Check-ins tomorrow, not confirmed',
      purpose:
        'Guests arriving tomorrow (UTC) whose booking is still open or did not end CONFIRMED: call the hotel or the guest.',
      query: `${BOOKINGS} AND CheckInDate >= '${iso(utcDay(now, 1))}' AND CheckInDate < '${iso(utcDay(now, 2))}' AND ((${RUNNING} AND BookingOutcome IS NULL) OR BookingOutcome != '${BookingOutcome.CONFIRMED}')`,
    },
    {
      name: 'Failed today',
      purpose:
        'Bookings that ended FAILED (credentials, supplier contract errors) since midnight UTC.',
      query: `${BOOKINGS} AND BookingOutcome = '${BookingOutcome.FAILED}' AND ${decidedSince(today)}`,
    },
    {
      name: 'Free cancellation ends within 48 h',
      purpose:
        'Guarded bookings whose free cancellation ends in the next 48 hours: remind the order system (a provisional order is cancelled automatically unless kept).',
      query: `${GUARDS} AND ${RUNNING} AND BookingPhase = '${GuardPhase.CONFIRMED}' AND FreeCancellationUntil >= '${iso(now)}' AND FreeCancellationUntil < '${at(ENDING_NOTICE_MS)}'`,
    },
    ...FLAGGED,
  ];
  // Bookings whose starter set a namespace division too: the default filter would hide them.
  return views.map((v) => ({ ...v, query: inEveryDivision(v.query) }));
}

/** The views as a Markdown table (docs/operating.md is generated from it). */
export function savedQueriesMarkdown(options: SavedQueryOptions = {}): string {
  const cell = (t: string) => t.replaceAll('|', '\\|');
  return [
    '| view | query | what for |',
    '|---|---|---|',
    ...savedQueries(options).map(
      (q) => `| ${q.name} | \`${cell(q.query)}\` | ${cell(q.purpose)} |`,
    ),
  ].join('\n');
}
