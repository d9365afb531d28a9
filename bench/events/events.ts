/**
 * Order events and bookings/s. Three workers on one server and simulator, alike but for order
 * events: off; on, to an endpoint that answers at once; on, to an endpoint that never answers
 * (each delivery attempt waits for its 10 s timeout). Confirmed bookings/s of each, in windows
 * taken in ABCCBA order. Two figures, same run: hanging ÷ answering (what a hanging endpoint costs
 * bookings: the claim is nothing) and answering ÷ off (what delivering events costs the server).
 *
 * And what delivering events costs the server in saved state changes, counted directly: after
 * the windows, the state changes of each sending kind's delivery workflows, read in their
 * histories (delivery-count.ts), ÷ the events delivered (distinct events the answering endpoint
 * received) or announced (the hanging kind's bookings). Beside it, per window, the server's own saved state
 * changes and the events each endpoint received, per confirmed booking (the three workers share
 * the server, so every window's own deltas; the ABCCBA order spreads what one kind leaves running,
 * a hanging endpoint's delivery, over the windows of the others alike).
 */
import { randomBytes } from 'node:crypto';
import type { BookingClient } from '../../src/client';
import { NO_GUARD, benchBookingInput } from '../shared/bookings';
import { serverCounts } from '../shared/metrics';
import { cpuSeconds } from '../shared/processes';
import type { BenchSettings } from '../shared/settings';
import { partTaskQueue, startPartStack, type PartContext, type PartStack } from '../shared/stack';
import { round } from '../shared/stats';
import type { WorkerHandle } from '../shared/children';
import { addWindow, emptyWindow, measureWindow } from '../shared/windows';
import { deliveryStateChanges } from './delivery-count';
import { startEndpoint, type Endpoint } from './endpoint';
import {
  eventsResult,
  KINDS,
  type EventsResult,
  type Kind,
  type KindTotals,
  type Sending,
} from './result';

export type { EventsResult } from './result';

type Settings = BenchSettings['throughput'];

/** One kind's worker, its task queue and client, and what its endpoint received so far. */
interface KindStack {
  readonly kind: Kind;
  readonly taskQueue: string;
  readonly worker: WorkerHandle;
  readonly bookings: BookingClient;
  readonly posts: () => number;
  /** Confirmed bookings over the whole part, warm-ups included. */
  confirmed: number;
}

/** A worker and a task queue of its own for each kind, alike but for order events. */
async function startKinds(
  stack: PartStack,
  endpoints: Record<Sending, Endpoint>,
): Promise<KindStack[]> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const kinds: KindStack[] = [];
  for (const kind of KINDS) {
    const taskQueue = partTaskQueue(`events-${kind}`);
    const orderEvents = kind !== 'off' ? { url: endpoints[kind].url, secret } : undefined;
    const worker = await stack.startWorker(orderEvents ? { orderEvents } : {}, taskQueue);
    const posts = kind === 'off' ? () => 0 : endpoints[kind].posts;
    kinds.push({
      kind,
      taskQueue,
      worker,
      bookings: stack.bookingsOn(taskQueue),
      posts,
      confirmed: 0,
    });
  }
  return kinds;
}

/** One confirmed booking on `k`'s task queue. */
async function oneBooking(s: Settings, k: KindStack): Promise<boolean> {
  const input = benchBookingInput('instant', s.guard ? {} : NO_GUARD);
  const started = await k.bookings.startBooking(input);
  const confirmed = (await k.bookings.result(started)).outcome === 'CONFIRMED';
  if (confirmed) k.confirmed += 1;
  return confirmed;
}

/**
 * One window of confirmed bookings on `k`'s worker, added to `totals`: the window's own saved
 * state changes (the server's, shared by the three workers), POSTs to its kind's endpoint and its
 * worker's CPU.
 */
async function measureKindWindow(
  s: Settings,
  ctx: PartContext,
  metricsUrl: string,
  k: KindStack,
  totals: KindTotals,
): Promise<void> {
  const edges = { saved: [0, 0], posts: [0, 0], cpu: [0, 0] };
  const w = await measureWindow(() => oneBooking(s, k), {
    concurrency: s.concurrency,
    warmupMs: s.warmupMs,
    ms: s.durationMs / 2,
    onFirstFailure: (err) => ctx.log(`events ${k.kind} failure: ${String(err)}`),
    onMeasure: async (edge) => {
      const at = edge === 'start' ? 0 : 1;
      edges.saved[at] = (await serverCounts(metricsUrl)).stateChanges;
      edges.posts[at] = k.posts();
      edges.cpu[at] = cpuSeconds(k.worker.pid);
    },
  });
  const delta = (e: number[]) => (e[1] ?? 0) - (e[0] ?? 0);
  totals.saved += delta(edges.saved);
  totals.posted += delta(edges.posts);
  totals.workerCpu += delta(edges.cpu);
  addWindow(totals.window, w);
  const each = (n: number) => round(n / Math.max(1, w.completed), 2);
  ctx.log(
    `events ${k.kind}: ${round(w.completed / w.seconds)} bookings/s, ` +
      `${each(delta(edges.saved))} state changes and ${each(delta(edges.posts))} events each, ` +
      `worker ${each(delta(edges.cpu) * 1000)} ms CPU each`,
  );
}

/** The state changes of each sending kind's delivery workflows so far, from their histories. */
async function countDeliveries(stack: PartStack, kinds: readonly KindStack[]) {
  const of = (kind: Sending) =>
    deliveryStateChanges(stack.temporal.client, kinds[KINDS.indexOf(kind)]!.taskQueue);
  return { answering: await of('answering'), hanging: await of('hanging') };
}

export async function runEventsBench(s: Settings, ctx: PartContext): Promise<EventsResult> {
  const stack = await startPartStack(ctx, { name: 'events', latencyMs: s.latencyMs, workers: 0 });
  const endpoints = { answering: await startEndpoint(false), hanging: await startEndpoint(true) };
  try {
    const kinds = await startKinds(stack, endpoints);
    const totals = Object.fromEntries(
      KINDS.map((k) => [k, { window: emptyWindow(), saved: 0, posted: 0, workerCpu: 0 }]),
    ) as Record<Kind, KindTotals>;
    for (const kind of [...KINDS, ...[...KINDS].reverse()]) {
      const k = kinds[KINDS.indexOf(kind)]!;
      await measureKindWindow(s, ctx, stack.metricsUrl, k, totals[kind]);
    }
    const deliveries = await countDeliveries(stack, kinds);
    ctx.log(
      `events: delivery workflows' state changes ${JSON.stringify(deliveries)}; ` +
        `events answering ${endpoints.answering.events()}, hanging ${endpoints.hanging.events()}`,
    );
    return eventsResult(s, totals, {
      confirmed: Object.fromEntries(kinds.map((k) => [k.kind, k.confirmed])) as Record<
        Kind,
        number
      >,
      events: { answering: endpoints.answering.events(), hanging: endpoints.hanging.events() },
      deliveries,
      deliveriesHeld: endpoints.hanging.held(),
    });
  } finally {
    await stack.stop();
    await endpoints.answering.close();
    await endpoints.hanging.close();
  }
}
