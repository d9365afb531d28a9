/**
 * Fleet-wide booking counts from Temporal's visibility store: bookings waiting for a person, and
 * decisions by outcome. Visibility, not in-process counters: no worker sees a workflow's result,
 * nor holds a booking waiting for an operator. Every worker reports the same numbers (aggregate
 * with `max`, not `sum`); closed workflows leave visibility after the namespace's retention, so
 * the outcome counts cover that window.
 */
import {
  BOOKING_WORKFLOWS,
  BookingOutcome,
  BookingPhase,
  CancellationOutcome,
} from '../shared/booking-contract';
import { GUARDING_WORKFLOWS, GuardPhase, ReconfirmationMark } from '../shared/guard-values';
import {
  DELIVER_TO_ENDPOINT_WORKFLOW,
  ORDER_EVENTS_FAILING_QUERY,
  type EndpointDeliveryMemo,
} from '../order-events/contract/delivery';
import { inEveryDivision } from '../shared/search-attributes';

/** Phases in which a running booking waits for a person (or, unreadable, for an operator's look). */
export const WAITING_PHASES = [
  BookingPhase.NEEDS_RECONCILIATION,
  BookingPhase.AWAITING_APPROVAL,
  BookingPhase.STATUS_UNREADABLE,
];
export type WaitingPhase = (typeof WAITING_PHASES)[number];

export interface BookingCounts {
  /** Running `bookRoom` workflows in each waiting phase. */
  readonly waiting: Readonly<Record<WaitingPhase, number>>;
  /**
   * Start time (epoch ms) of the oldest booking waiting in each phase, where any waits and
   * `oldestStart` was given: the phase has no timestamp of its own, and a booking reaches these
   * phases within minutes of its start.
   */
  readonly oldestWaitingStart: Readonly<Partial<Record<WaitingPhase, number>>>;
  /**
   * `bookRoom` runs by `BookingOutcome`: running ones (a CONFIRMED order while its guard runs) and
   * closed ones within retention, one per deciding run (a run answering an earlier one has none).
   */
  readonly outcomes: Readonly<Record<BookingOutcome, number>>;
  /** Closed `cancelBooking` workflows by outcome (within retention). */
  readonly cancellations: Readonly<Record<CancellationOutcome, number>>;
  /** Running guards whose reconfirmation read something other than CONFIRMED. */
  readonly reconfirmationFlags: number;
  /**
   * Cancellations the supplier never confirmed that need a person: running guards in
   * `CANCELLATION_PENDING`, and `cancelBooking` runs that ended `STILL_ACTIVE` in the last 24 h.
   */
  readonly cancellationsUnconfirmed: number;
  /** Orders whose events the order system has not taken (FAILING or UNDELIVERED). */
  readonly orderEventsFailing: number;
  /** When these counts were taken, epoch ms. */
  readonly at: number;
}

/**
 * Visibility queries, one per count, over every division (`inEveryDivision`: a booking whose
 * starter set one is counted too). Values are enum constants: nothing to escape.
 */
export const BOOKING_COUNT_QUERIES = {
  waiting: (phase: WaitingPhase) =>
    inEveryDivision(
      `${BOOKING_WORKFLOWS} AND ExecutionStatus = 'Running' AND BookingPhase = '${phase}'`,
    ),
  outcome: (outcome: BookingOutcome) =>
    inEveryDivision(`${BOOKING_WORKFLOWS} AND BookingOutcome = '${outcome}'`),
  cancellation: (outcome: CancellationOutcome) =>
    inEveryDivision(`WorkflowType = 'cancelBooking' AND BookingOutcome = '${outcome}'`),
  reconfirmationFlags: () =>
    inEveryDivision(
      `${GUARDING_WORKFLOWS} AND ExecutionStatus = 'Running' AND Reconfirmation = '${ReconfirmationMark.FLAGGED}'`,
    ),
  cancellationPending: () =>
    inEveryDivision(
      `${GUARDING_WORKFLOWS} AND ExecutionStatus = 'Running' AND BookingPhase = '${GuardPhase.CANCELLATION_PENDING}'`,
    ),
  orderEventsFailing: () => inEveryDivision(ORDER_EVENTS_FAILING_QUERY),
  stillActiveSince: (since: Date) =>
    inEveryDivision(
      `WorkflowType = 'cancelBooking' AND BookingOutcome = '${CancellationOutcome.STILL_ACTIVE}' AND CloseTime > '${since.toISOString()}'`,
    ),
} as const;

/** How far back a cancellation that ended `STILL_ACTIVE` still counts as needing a person. */
export const UNCONFIRMED_CANCELLATION_WINDOW_MS = 24 * 3_600_000;

export interface BookingCounterOptions {
  /** Counts the workflows matching a visibility query (e.g. `client.workflow.count(q)`). */
  readonly count: (query: string) => Promise<number>;
  /** Start time (epoch ms) of the oldest workflow matching a query; asked only where some wait. */
  readonly oldestStart?: (query: string) => Promise<number | undefined>;
  /**
   * The failing orders of the delivery workflows matching a query ({@link failingOrderCount}): the
   * endpoint's delivery holds many. Absent: each workflow counts one.
   */
  readonly failingOrders?: (query: string) => Promise<number>;
  /**
   * Counts younger than this are served from cache, so several scrapers do not multiply the
   * queries. 0: every call counts afresh. @default 15_000
   */
  readonly maxAgeMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface BookingCounter {
  /** At most `maxAgeMs` old; callers share one round; rejects (caching nothing) on a failure. */
  get(): Promise<BookingCounts>;
}

function fromEntries<K extends string>(keys: readonly K[], values: readonly number[]) {
  return Object.fromEntries(keys.map((k, i) => [k, values[i] ?? 0])) as Record<K, number>;
}

/** A cached counter over {@link BOOKING_COUNT_QUERIES}. */
export function createBookingCounter(options: BookingCounterOptions): BookingCounter {
  const maxAgeMs = options.maxAgeMs ?? 15_000; // 15 s, a typical scrape interval
  const now = options.now ?? Date.now;
  let cached: BookingCounts | undefined;
  let inFlight: Promise<BookingCounts> | undefined;

  async function countAll(): Promise<BookingCounts> {
    const outcomes = Object.values(BookingOutcome);
    const cancellations = Object.values(CancellationOutcome);
    const since = new Date(now() - UNCONFIRMED_CANCELLATION_WINDOW_MS);
    const [waiting, byOutcome, byCancellation, flags, pending, stillActive, eventsFailing] =
      await Promise.all([
        Promise.all(WAITING_PHASES.map((p) => options.count(BOOKING_COUNT_QUERIES.waiting(p)))),
        Promise.all(outcomes.map((o) => options.count(BOOKING_COUNT_QUERIES.outcome(o)))),
        Promise.all(cancellations.map((o) => options.count(BOOKING_COUNT_QUERIES.cancellation(o)))),
        options.count(BOOKING_COUNT_QUERIES.reconfirmationFlags()),
        options.count(BOOKING_COUNT_QUERIES.cancellationPending()),
        options.count(BOOKING_COUNT_QUERIES.stillActiveSince(since)),
        (options.failingOrders ?? options.count)(BOOKING_COUNT_QUERIES.orderEventsFailing()),
      ]);
    const oldest = await Promise.all(
      WAITING_PHASES.map((p, i) =>
        options.oldestStart && (waiting[i] ?? 0) > 0
          ? options.oldestStart(BOOKING_COUNT_QUERIES.waiting(p))
          : undefined,
      ),
    );
    return {
      waiting: fromEntries(WAITING_PHASES, waiting),
      oldestWaitingStart: Object.fromEntries(
        WAITING_PHASES.flatMap((p, i) => (oldest[i] === undefined ? [] : [[p, oldest[i]]])),
      ),
      outcomes: fromEntries(outcomes, byOutcome),
      cancellations: fromEntries(cancellations, byCancellation),
      reconfirmationFlags: flags,
      cancellationsUnconfirmed: pending + stillActive,
      orderEventsFailing: eventsFailing,
      at: now(),
    };
  }

  return {
    get() {
      if (cached && maxAgeMs > 0 && now() - cached.at < maxAgeMs) return Promise.resolve(cached);
      inFlight ??= countAll()
        .then((counts) => (cached = counts))
        .finally(() => (inFlight = undefined));
      return inFlight;
    },
  };
}

/** Failing orders among listed deliveries: the endpoint's memo says; an order's own is one. */
export async function failingOrderCount(
  workflows: AsyncIterable<{ readonly type: string; readonly memo?: Record<string, unknown> }>,
): Promise<number> {
  let n = 0;
  for await (const wf of workflows) {
    const memo = wf.memo as Partial<EndpointDeliveryMemo> | undefined;
    n += wf.type === DELIVER_TO_ENDPOINT_WORKFLOW ? (memo?.failingOrders ?? 0) : 1;
  }
  return n;
}

/** The earliest `startTime` among listed workflows (e.g. `client.workflow.list({ query })`), ms. */
export async function oldestStartTime(
  workflows: AsyncIterable<{ readonly startTime: Date }>,
): Promise<number | undefined> {
  let oldest: number | undefined;
  for await (const wf of workflows) oldest = Math.min(oldest ?? Infinity, wf.startTime.getTime());
  return oldest;
}
