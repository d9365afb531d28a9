/**
 * Order events and bookings/s. Three workers on one server and simulator, alike but for order
 * events: off; on, to an endpoint that answers at once; on, to an endpoint that never answers
 * (each delivery attempt waits for its 10 s timeout). Confirmed bookings/s of each, in windows
 * taken in ABCCBA order. Two figures, same run: hanging ÷ answering (what a hanging endpoint costs
 * bookings: the claim is nothing) and answering ÷ off (what delivering events costs the server).
 * And what events cost the server in saved state changes: per window, the server's saved state
 * changes (bench/server-work.ts's `serverCounts`) and the events each endpoint received, per
 * confirmed booking; the three workers share the server, so every window's own deltas, and the
 * ABCCBA order spreads what one kind leaves running (a hanging endpoint's delivery workflows) over
 * the windows of the others alike.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BookingClient } from '../src/client';
import type { BenchSettings } from './bench-config';
import { NO_GUARD, benchBookingInput } from './bookings';
import {
  cpuSeconds,
  startBenchTemporal,
  startSimulatorChild,
  partWorker,
  startWorker,
  type BenchTemporal,
  type WorkerHandle,
} from './bench-stack';
import type { ThroughputContext } from './throughput';
import { serverCounts } from './server-work';
import { round, summarize } from './stats';
import { addWindow, emptyWindow, measureWindow, type Window } from './windows';

type Kind = 'off' | 'answering' | 'hanging';

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
   * Saved state changes (executions created or updated, the server's `persistence_requests`) per
   * confirmed booking, over the measured windows of each setting.
   */
  readonly stateChangesPerBooking: Readonly<Record<Kind, number>>;
  /** POSTs each endpoint received per confirmed booking over the measured windows of its setting. */
  readonly eventsPerBooking: { readonly answering: number; readonly hanging: number };
  /**
   * (State changes per booking with events to the answering endpoint − with events off) ÷ the
   * events it received per booking: what delivering one event saves on the server (0: nothing;
   * noise can make it slightly negative).
   */
  readonly stateChangesPerDeliveredEvent: number;
  /**
   * The same with the hanging endpoint, per event a booking announces (counted at the answering
   * endpoint: a hanging one is sent each event once directly, then its deliveries wait).
   */
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

/** An order system's endpoint: answering 204 at once, or taking every request and never answering. */
async function endpoint(hang: boolean) {
  const held: ServerResponse[] = [];
  let count = 0;
  let posts = 0;
  const server = createServer((req, res) => {
    count += 1;
    if (req.method === 'POST') posts += 1;
    if (hang) held.push(res);
    else req.resume().on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/order-events`,
    held: () => count,
    /** POSTs received so far: one an event (answered or not). */
    posts: () => posts,
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const KINDS = ['off', 'answering', 'hanging'] as const;

/** One kind's worker, its client, and the POSTs its endpoint has received so far. */
interface KindStack {
  readonly kind: Kind;
  readonly worker: WorkerHandle;
  readonly bookings: BookingClient;
  readonly posts: () => number;
}

/** Over the measured windows of a kind: the windows, saved state changes, POSTs, worker CPU s. */
interface KindTotals {
  readonly window: Window;
  saved: number;
  posted: number;
  workerCpu: number;
}

export async function runEventsBench(
  s: BenchSettings['throughput'],
  ctx: ThroughputContext,
): Promise<EventsResult> {
  const temporal = await startBenchTemporal(ctx.serverDynamicConfig);
  const sim = await startSimulatorChild(s.latencyMs);
  const endpoints = { answering: await endpoint(false), hanging: await endpoint(true) };
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const stacks: KindStack[] = [];
  try {
    for (const kind of KINDS) {
      const taskQueue = `bench-events-${kind}-${randomUUID().slice(0, 8)}`;
      const worker = await startWorker({
        ...partWorker(ctx, temporal, taskQueue, sim.baseUrl),
        ...(kind !== 'off' ? { orderEvents: { url: endpoints[kind].url, secret } } : {}),
      });
      const bookings = new BookingClient({
        client: temporal.client,
        taskQueue,
        workflow: s.workflow,
      });
      const posts = kind === 'off' ? () => 0 : endpoints[kind].posts;
      stacks.push({ kind, worker, bookings, posts });
    }
    const totals = Object.fromEntries(
      KINDS.map((k) => [k, { window: emptyWindow(), saved: 0, posted: 0, workerCpu: 0 }]),
    ) as Record<Kind, KindTotals>;
    for (const kind of [...KINDS, ...[...KINDS].reverse()]) {
      await measureEventsWindow(s, ctx, temporal, stacks[KINDS.indexOf(kind)]!, totals[kind]);
    }
    return eventsResult(s, totals, endpoints.hanging.held());
  } finally {
    await Promise.all(stacks.map((k) => k.worker.stop()));
    await endpoints.answering.close();
    await endpoints.hanging.close();
    await sim.stop();
    await temporal.close();
  }
}

/**
 * One window of confirmed bookings on `stack`'s worker, added to `totals`: the window's own saved
 * state changes (the server's, shared by the three workers), POSTs to its kind's endpoint and its
 * worker's CPU.
 */
async function measureEventsWindow(
  s: BenchSettings['throughput'],
  ctx: ThroughputContext,
  temporal: BenchTemporal,
  stack: KindStack,
  totals: KindTotals,
): Promise<void> {
  const { kind, bookings } = stack;
  const edges = { saved: [0, 0], posts: [0, 0], cpu: [0, 0] };
  const w = await measureWindow(
    async () => {
      const input = benchBookingInput('instant', s.guard ? {} : NO_GUARD);
      await bookings.startBooking(input);
      return (await bookings.result(input.orderId)).outcome === 'CONFIRMED';
    },
    {
      concurrency: s.concurrency,
      warmupMs: s.warmupMs,
      ms: s.durationMs / 2,
      onFirstFailure: (err) => ctx.log(`events ${kind} failure: ${String(err)}`),
      onMeasure: async (edge) => {
        const at = edge === 'start' ? 0 : 1;
        edges.saved[at] = (await serverCounts(temporal.metricsUrl)).stateChanges;
        edges.posts[at] = stack.posts();
        edges.cpu[at] = cpuSeconds(stack.worker.pid);
      },
    },
  );
  const delta = (e: number[]) => (e[1] ?? 0) - (e[0] ?? 0);
  totals.saved += delta(edges.saved);
  totals.posted += delta(edges.posts);
  totals.workerCpu += delta(edges.cpu);
  addWindow(totals.window, w);
  const each = (n: number) => round(n / Math.max(1, w.completed), 2);
  ctx.log(
    `events ${kind}: ${round(w.completed / w.seconds)} bookings/s, ` +
      `${each(delta(edges.saved))} state changes and ${each(delta(edges.posts))} events each, ` +
      `worker ${each(delta(edges.cpu) * 1000)} ms CPU each`,
  );
}

/** The part's figures from each kind's totals. */
function eventsResult(
  s: BenchSettings['throughput'],
  totals: Record<Kind, KindTotals>,
  deliveriesHeld: number,
): EventsResult {
  const perSecond = (k: Kind) => totals[k].window.completed / totals[k].window.seconds;
  const perBooking = (n: number, k: Kind) => n / Math.max(1, totals[k].window.completed);
  const changes = (k: Kind) => perBooking(totals[k].saved, k);
  const eventsAnswering = perBooking(totals.answering.posted, 'answering');
  const perEvent = (k: 'answering' | 'hanging') =>
    eventsAnswering > 0 ? round((changes(k) - changes('off')) / eventsAnswering, 2) : NaN;
  const latency = (k: Kind) => {
    const l = summarize(totals[k].window.latencies);
    return { p50: round(l.p50), p99: round(l.p99) };
  };
  const byKind = <T>(f: (k: Kind) => T) =>
    Object.fromEntries(KINDS.map((k) => [k, f(k)])) as Record<Kind, T>;
  return {
    bookingsPerSecond: byKind((k) => round(perSecond(k))),
    hangingRatio: round(perSecond('hanging') / perSecond('answering'), 3),
    eventsCostRatio: round(perSecond('answering') / perSecond('off'), 3),
    latencyMs: byKind(latency),
    deliveriesHeld,
    stateChangesPerBooking: byKind((k) => round(changes(k), 2)),
    eventsPerBooking: {
      answering: round(eventsAnswering, 2),
      hanging: round(perBooking(totals.hanging.posted, 'hanging'), 2),
    },
    stateChangesPerDeliveredEvent: perEvent('answering'),
    workerCpuMsPerBooking: byKind((k) => round(perBooking(totals[k].workerCpu * 1000, k), 2)),
    stateChangesPerEventHanging: perEvent('hanging'),
    failures: KINDS.reduce((n, k) => n + totals[k].window.failures, 0),
    concurrency: s.concurrency,
    supplierLatencyMs: s.latencyMs,
    seconds: round(totals.off.window.seconds),
  };
}
