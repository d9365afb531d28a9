/** What the `events` part reports (bench/events/events.ts), and the pure step to its figures. */
import { round, summarize } from '../shared/stats';
import type { Window } from '../shared/windows';

export const KINDS = ['off', 'answering', 'hanging'] as const;
export type Kind = (typeof KINDS)[number];
/** The kinds whose worker sends order events. */
export type Sending = Exclude<Kind, 'off'>;

export interface EventsResult {
  /** Confirmed bookings/s by order-events setting. */
  readonly bookingsPerSecond: Readonly<Record<Kind, number>>;
  /** Hanging ÷ answering: 1 means a hanging endpoint costs bookings nothing. */
  readonly hangingRatio: number;
  /** Answering ÷ off: the server work of announcing and delivering events. */
  readonly eventsCostRatio: number;
  readonly latencyMs: Readonly<Record<Kind, { readonly p50: number; readonly p99: number }>>;
  /** Delivery attempts the endpoint held (never answered) during the part. */
  readonly deliveriesHeld: number;
  /**
   * The server's saved state changes (executions created or updated, its `persistence_requests`,
   * shared by the three kinds) per confirmed booking, over the measured windows of each setting.
   */
  readonly stateChangesPerBooking: Readonly<Record<Kind, number>>;
  /** POSTs each endpoint received per confirmed booking over the measured windows of its setting. */
  readonly eventsPerBooking: { readonly answering: number; readonly hanging: number };
  /**
   * Over the whole part, for each sending kind: the saved state changes of its delivery workflows,
   * counted in their histories (delivery-count.ts), their runs, and the events (those the
   * answering endpoint was delivered, distinct `webhook-id`s; those the hanging kind's bookings
   * announced, at the answering kind's events per booking).
   */
  readonly deliveries: Readonly<
    Record<
      Sending,
      { readonly runs: number; readonly stateChanges: number; readonly events: number }
    >
  >;
  /**
   * Saved state changes of the answering endpoint's delivery workflows ÷ the events it was
   * delivered, over the part: what delivering one event saves on the server (0: nothing beyond
   * the booking's own task, which writes the POST's marker with its other events).
   */
  readonly stateChangesPerDeliveredEvent: number;
  /** The same for the hanging endpoint's deliveries, per event its bookings announced. */
  readonly stateChangesPerEventHanging: number;
  /**
   * The worker's CPU per confirmed booking over the measured windows of each setting, ms (each
   * setting has a worker process of its own): what announcing and POSTing events costs the worker.
   */
  readonly workerCpuMsPerBooking: Readonly<Record<Kind, number>>;
  readonly failures: number;
  readonly concurrency: number;
  readonly supplierLatencyMs: number;
  /** Measured seconds per setting. */
  readonly seconds: number;
}

/** Over the measured windows of a kind: the windows, saved state changes, POSTs, worker CPU s. */
export interface KindTotals {
  readonly window: Window;
  saved: number;
  posted: number;
  workerCpu: number;
}

/** What the part counted over all of it (warm-ups included), by kind. */
export interface PartCounts {
  /** Confirmed bookings. */
  readonly confirmed: Readonly<Record<Kind, number>>;
  /** Events (distinct `webhook-id`s) each sending kind's endpoint received. */
  readonly events: Readonly<Record<Sending, number>>;
  /** Each sending kind's delivery workflows. */
  readonly deliveries: Readonly<Record<Sending, { runs: number; stateChanges: number }>>;
  readonly deliveriesHeld: number;
}

const byKind = <T>(f: (k: Kind) => T) =>
  Object.fromEntries(KINDS.map((k) => [k, f(k)])) as Record<Kind, T>;

/** The events each sending kind's deliveries carried, over the part. Pure. */
function deliveredEvents(c: PartCounts): Record<Sending, number> {
  const perBooking = c.events.answering / Math.max(1, c.confirmed.answering);
  return { answering: c.events.answering, hanging: c.confirmed.hanging * perBooking };
}

/** The part's figures from each kind's windows and the part's counts. Pure. */
export function eventsResult(
  s: { readonly concurrency: number; readonly latencyMs: number },
  totals: Record<Kind, KindTotals>,
  counts: PartCounts,
): EventsResult {
  const perSecond = (k: Kind) => totals[k].window.completed / totals[k].window.seconds;
  const perBooking = (n: number, k: Kind) => n / Math.max(1, totals[k].window.completed);
  const events = deliveredEvents(counts);
  const perEvent = (k: Sending) =>
    events[k] > 0 ? round(counts.deliveries[k].stateChanges / events[k], 3) : NaN;
  const latency = (k: Kind) => {
    const l = summarize(totals[k].window.latencies);
    return { p50: round(l.p50), p99: round(l.p99) };
  };
  const deliveries = (k: Sending) => ({ ...counts.deliveries[k], events: round(events[k], 1) });
  return {
    bookingsPerSecond: byKind((k) => round(perSecond(k))),
    hangingRatio: round(perSecond('hanging') / perSecond('answering'), 3),
    eventsCostRatio: round(perSecond('answering') / perSecond('off'), 3),
    latencyMs: byKind(latency),
    deliveriesHeld: counts.deliveriesHeld,
    stateChangesPerBooking: byKind((k) => round(perBooking(totals[k].saved, k), 2)),
    eventsPerBooking: {
      answering: round(perBooking(totals.answering.posted, 'answering'), 2),
      hanging: round(perBooking(totals.hanging.posted, 'hanging'), 2),
    },
    deliveries: { answering: deliveries('answering'), hanging: deliveries('hanging') },
    stateChangesPerDeliveredEvent: perEvent('answering'),
    stateChangesPerEventHanging: perEvent('hanging'),
    workerCpuMsPerBooking: byKind((k) => round(perBooking(totals[k].workerCpu * 1000, k), 2)),
    failures: KINDS.reduce((n, k) => n + totals[k].window.failures, 0),
    concurrency: s.concurrency,
    supplierLatencyMs: s.latencyMs,
    seconds: round(totals.off.window.seconds),
  };
}
