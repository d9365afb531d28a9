/**
 * Whole deliveries of the `order-event-endpoints` surface, through real Temporal: orders' events
 * announced through the product's seam (`announceOrderEvent`: the direct POST, else the hand-over
 * to the endpoint's delivery workflow), delivered in its rounds by a real order-events worker as
 * production builds it, to the hostile receiver, each attempt answered by the event's script.
 * Counted: an event sent again once its 2xx came, or still held after it (duplicated); one
 * neither delivered nor held (lost); one held and never tried, or not in a documented place in
 * time (stuck); one sent before its order's earlier event was delivered, or a `lastFailure` the
 * docs do not give (unclear); a WorkflowTaskFailed in the delivery's history.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { Logger } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { createOrderEventsWorker } from '../../src/build-worker';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { createDataConverter } from '../../src/codec/data-converter';
import { developmentKey } from '../../src/config/codec';
import { loadTemporalSecurity } from '../../src/config/temporal-security';
import { createOrderEventActivities } from '../../src/order-events/activities';
import {
  endpointDeliveryWorkflowId,
  endpointEventsStateQuery,
  type Announced,
  type DeliveryHints,
  type EndpointEventsState,
} from '../../src/order-events/contract/delivery';
import type { OrderEvent } from '../../src/order-events/contract/event';
import { loadWorkflowBundle } from '../../src/workflow-bundle';
import { defect, type Tally } from './campaign';
import { surfaceTemporal } from './temporal';
import { expected, quickAnswer, type Answer } from './order-event-answers';
import {
  eventOf,
  inActivity,
  leakLog,
  leaky,
  SECRET,
  type HostileReceiver,
} from './order-event-receiver';

/** How long the events have to reach a documented place: a round of 3 attempts, twice. */
export const SETTLE_MS = 30_000;
/** The failures `events list` shows (`lastFailure`): a status, or no answer and why. */
const FAILURE = /^(the order system answered HTTP \d{3}|no answer from the order system \(\w+\))$/;

/** An answer the client reads as a 2xx, to end a script with. */
const ok: fc.Arbitrary<Answer> = fc.oneof(
  fc.record({
    k: fc.constant('final' as const),
    status: fc.integer({ min: 200, max: 299 }),
    head: fc.constant(''),
    interim: fc.constantFrom(100, 102, 103),
  }),
  fc.record({ k: fc.constant('final' as const), status: fc.constant(204), head: fc.constant('') }),
  fc.record({
    k: fc.constant('cut' as const),
    at: fc.constant('body' as const),
    reset: fc.boolean(),
    status: fc.constant(200),
  }),
);
/** An event's answers: up to two of any, then mostly a 2xx. */
const script = fc
  .tuple(fc.array(quickAnswer, { maxLength: 2 }), quickAnswer, fc.option(ok, { freq: 3 }))
  .map(([first, last, end]) => [...first, end ?? last]);

interface Temporal {
  readonly client: Client;
  readonly native: NativeConnection;
  close(): Promise<void>;
}

/** The worker's log goes here while a run lasts: the SDK's runtime, and its log, is one a process. */
let workerLog: Logger | undefined;
const toRun = (message: string, meta?: Record<string, unknown>) => workerLog?.info(message, meta);
const runtimeLog: Logger = {
  log: (_level, message, meta) => toRun(message, meta),
  ...{ trace: toRun, debug: toRun, info: toRun, warn: toRun, error: toRun },
};

/** The run's Temporal (`TEMPORAL_ADDRESS`, as `npm test` sets it), else a dev server of our own. */
async function connect(log: Logger): Promise<Temporal> {
  workerLog = log;
  try {
    Runtime.install({ logger: runtimeLog });
  } catch {
    // Installed already (by an earlier run, or before the campaign: then its log is not ours).
  }
  const temporal = await surfaceTemporal();
  const security = loadTemporalSecurity(temporal.env);
  const options = temporalConnectionOptions({ ...security, address: temporal.address });
  const connection = await Connection.connect(options);
  const native = await NativeConnection.connect(options);
  const dataConverter = createDataConverter({ keys: [developmentKey()] });
  return {
    client: new Client({ connection, namespace: 'default', dataConverter }),
    native,
    async close() {
      workerLog = undefined;
      await connection.close();
      await native.close();
      await temporal.stop();
    },
  };
}

/** `orders` whole deliveries of one or two events each, to `r`; `ready` once its worker is up. */
export async function wholeDeliveries(
  t: Tally,
  r: HostileReceiver,
  seed: number,
  orders: number,
  ready: () => void,
) {
  const log = leakLog(t);
  const temporal = await connect(log);
  const taskQueue = `fuzz-order-events-${randomBytes(4).toString('hex')}`;
  const endpoint = { url: r.urlFor({ k: 'hang' }), secret: SECRET };
  const handle = temporal.client.workflow.getHandle(endpointDeliveryWorkflowId(taskQueue));
  try {
    const worker = await createOrderEventsWorker({
      connection: temporal.native,
      taskQueue,
      endpoint,
      workflowBundle: await loadWorkflowBundle(process.env.WORKFLOW_BUNDLE_PATH),
      dataConverter: createDataConverter({ keys: [developmentKey()] }),
    });
    ready();
    const plans = fc.sample(fc.array(script, { minLength: 1, maxLength: 2 }), {
      seed,
      numRuns: orders,
    });
    const events = plans.map((plan, i) =>
      plan.map((_, j) => eventOf(`fuzz-oe-${seed}-${i}`, j + 1)),
    );
    await worker.runUntil(async () => {
      const env = new MockActivityEnvironment(
        { taskQueue },
        { client: temporal.client, logger: log },
      );
      const { announceOrderEvent } = createOrderEventActivities(endpoint);
      const announce = (e: OrderEvent, hints: DeliveryHints) =>
        inActivity(env, () => announceOrderEvent(e, hints));
      await Promise.all(plans.map((plan, i) => announceOrder(t, r, announce, plan, events[i]!)));
      await settle(r, events.flat(), handle);
      judge(t, r, events, await state(handle));
    });
    const history = await handle.fetchHistory().catch(() => ({ events: [] }));
    const failed = (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes);
    for (const _ of failed)
      defect(t, 'taskFailures', `whole deliveries, seed ${seed}`, 'WorkflowTaskFailed');
  } finally {
    await handle.terminate('fuzz campaign over').catch(() => undefined);
    await temporal.close();
  }
}

/** An order's events announced one after another, as the outbox does: direct until one is not. */
async function announceOrder(
  t: Tally,
  r: HostileReceiver,
  announce: (e: OrderEvent, hints: DeliveryHints) => Promise<Announced>,
  plan: readonly Answer[][],
  events: readonly OrderEvent[],
) {
  t.inputs += 1;
  let direct = true;
  for (const [j, answers] of plan.entries()) {
    r.script(events[j]!.id, answers);
    const announced = await announce(
      events[j]!,
      direct ? { direct: true } : { checkOverflow: true },
    );
    if (announced.delivered !== 'at-once') direct = false;
  }
}

const NOTHING: EndpointEventsState = {
  breaker: { mark: 'CLOSED' },
  held: 0,
  delivered: 0,
  orders: [],
};
/** What the endpoint's delivery holds; nothing once it closed (or never started). */
const state = (h: WorkflowHandle) => h.query(endpointEventsStateQuery).catch(() => NOTHING);

/** When `e`'s first 2xx was answered (a 2xx whose head came whole), if one was. */
const okAt = (r: HostileReceiver, e: OrderEvent) =>
  r.attempts(e.id).find((a) => expected(a.answer) === 'delivered')?.at;

/** Waits until each event is delivered and no longer held, or held as failing. */
async function settle(r: HostileReceiver, events: readonly OrderEvent[], h: WorkflowHandle) {
  const until = Date.now() + SETTLE_MS;
  while (Date.now() < until) {
    const orders = (await state(h)).orders;
    const ids = (os: typeof orders) => new Set(os.flatMap((o) => o.pending.map((p) => p.id)));
    const held = ids(orders);
    const failing = ids(orders.filter((o) => o.mark !== 'DELIVERED'));
    if (events.every((e) => (okAt(r, e) === undefined ? failing.has(e.id) : !held.has(e.id))))
      return;
    await new Promise((done) => setTimeout(done, 500));
  }
}

function judge(
  t: Tally,
  r: HostileReceiver,
  orders: readonly (readonly OrderEvent[])[],
  s: EndpointEventsState,
) {
  const held = new Map(s.orders.flatMap((o) => o.pending.map((p) => [p.id, o] as const)));
  for (const o of s.orders) {
    const failure = o.lastFailure ?? '';
    if (leaky(failure)) defect(t, 'leaks', o.orderId, `lastFailure: ${failure}`);
    if (failure && !FAILURE.test(failure))
      defect(t, 'unclear', o.orderId, `lastFailure: ${failure}`);
  }
  for (const events of orders)
    events.forEach((e, j) => {
      const attempts = r.attempts(e.id);
      const input = `whole delivery of ${e.id}: ${JSON.stringify(attempts.map((a) => a.answer)).slice(0, 250)}`;
      const ok = okAt(r, e);
      const order = held.get(e.id);
      if (ok !== undefined && (order || attempts.some((a) => a.at > ok)))
        defect(t, 'duplicated', input, 'sent again after its 2xx, or still held');
      if (ok === undefined && !order) defect(t, 'lost', input, 'neither delivered nor held');
      if (ok === undefined && order?.mark === 'DELIVERED')
        defect(t, 'stuck', input, `not in a documented place in ${SETTLE_MS} ms`);
      const earlier = j > 0 ? okAt(r, events[j - 1]!) : 0;
      const first = attempts[0]?.at;
      if (first !== undefined && (earlier === undefined || first < earlier))
        defect(t, 'unclear', input, 'sent before the earlier event of its order was delivered');
    });
}
