/**
 * The supplier surface's whole orders (supplier.ts): a few `bookRoom` orders through a real
 * Temporal (the run's `TEMPORAL_ADDRESS`, else a dev server of their own) and a real worker, each
 * with its booking answer spoiled by the simulator's hostile mode. Per order: a decision within
 * its deadline (an operator, played here, reconciles an ambiguous call by the order id the
 * supplier's booking carries), at most one supplier booking and the one that exists in the
 * decision, no workflow task failed, no secret or guest datum in its state, result or the logs.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import fc from 'fast-check';
import {
  BookingClient,
  type BookRoomResult,
  type OrderState,
  type StartedBooking,
} from '../../src/client';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { createBookingWorker } from '../../src/build-worker';
import { createDataConverter } from '../../src/codec/data-converter';
import { HotelApiClient } from '../../src/hotel-api';
import { buildSimulator, HOSTILE_KINDS, type HostileKind, type Simulator } from '../simulator';
import { scenarioOptionId } from '../simulator/scenarios';
import { loadWorkflowBundle } from '../../src/workflow-bundle';
import { defect, type Tally } from './campaign';
import { surfaceTemporal } from './temporal';
import { FUZZ_COMPANY, fuzzConfig, GUEST, leaked } from './supplier-checks';

/** Beyond the booking call's deadline, how long an order may take to its decision. */
const DECISION_MARGIN_MS = 15_000;
const FAST_POLLING = { initialInterval: '50ms', maximumInterval: '200ms', backoffCoefficient: 1.5 };

/** Where log lines go while orders run (the runtime's logger is installed once per process). */
const logSink: { line?: (text: string) => void } = {};
function captureLogs(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', (e) =>
        logSink.line?.(`${e.message} ${inspect(e.meta ?? {}, { depth: 8 })}`),
      ),
      shutdownSignals: [],
      // Core's lines too (a task completed for a workflow terminated meanwhile), read, not shown.
      telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // Installed already (by a test's helper): its lines are not read here.
  }
}

interface Stack {
  readonly sim: Simulator;
  readonly bookings: BookingClient;
  readonly bookingMs: number;
}

interface Order {
  readonly orderId: string;
  readonly kind: HostileKind;
  readonly seed: number;
}

type Decided = { result: BookRoomResult } | { error: unknown } | 'stuck';

/** Waits for the order's decision, reconciling as an operator would: by the order id. */
async function decision(s: Stack, o: Order, started: StartedBooking, until: number) {
  const result: Promise<Decided> = s.bookings.result(started).then(
    (r) => ({ result: r }),
    (error: unknown) => ({ error }),
  );
  let reconciled = false;
  for (;;) {
    const tick = new Promise<undefined>((r) => setTimeout(r, 100, undefined));
    const done = await Promise.race([result, tick]);
    if (done !== undefined) return done;
    if (Date.now() > until) return 'stuck';
    const state = await s.bookings.state(o.orderId).catch(() => undefined);
    if (state?.phase === 'NEEDS_RECONCILIATION' && !reconciled) {
      reconciled = true;
      const held = s.sim.bookings({ customFields: { custom_field_10: o.orderId } })[0];
      await s.bookings.resolveReconciliation(
        o.orderId,
        held ? { bookingId: held.bookingId } : { noBooking: true },
      );
    }
  }
}

async function runOrder(t: Tally, s: Stack, o: Order): Promise<void> {
  const what = `order × booking × ${o.kind} × seed ${o.seed}`;
  s.sim.addHostileRule({
    endpoint: 'booking',
    kind: o.kind,
    seed: o.seed,
    times: 1,
    when: o.orderId,
  });
  const g = GUEST;
  const started = await s.bookings.startBooking({
    orderId: o.orderId,
    optionId: scenarioOptionId('instant'),
    rooms: [{ firstName: g.firstName, lastName: g.lastName }],
    contact: { phonePrefix: '+39', phone: g.phone, email: g.email },
    polling: FAST_POLLING,
  });
  const decided = await decision(s, o, started, Date.now() + s.bookingMs + DECISION_MARGIN_MS);
  const applied = s.sim.hostileApplied().last.find((a) => a.kind === o.kind && a.seed === o.seed);
  const input = `${what} (${applied?.variant ?? 'not applied'})`;
  const handle = s.bookings.handle(o.orderId);
  const history = await handle.fetchHistory();
  const failed = history.events?.filter((e) => e.workflowTaskFailedEventAttributes) ?? [];
  for (const e of failed)
    defect(t, 'taskFailures', input, e.workflowTaskFailedEventAttributes?.failure?.message ?? '');
  const state = await s.bookings.state(o.orderId).catch(() => undefined);
  if (decided === 'stuck') judgeWait(t, s, o, state, input);
  else if ('error' in decided)
    defect(t, 'crashes', input, `the order failed: ${String(decided.error)}`);
  else await judgeBookings(t, s, o, decided.result, input);
  const leak = leaked(JSON.stringify([state, decided === 'stuck' ? null : decided]));
  if (leak !== undefined) defect(t, 'leaks', input, `${leak} in the order's state or result`);
  await handle.terminate('fuzz campaign: order judged').catch(() => undefined);
}

/**
 * No decision yet. Not stuck when the order waits as documented: a 429 asked it to wait before it
 * sends the booking again (at most the client's cap on `Retry-After`); the supplier holds nothing.
 */
function judgeWait(t: Tally, s: Stack, o: Order, state: OrderState | undefined, input: string) {
  if (state?.phase !== 'BOOKING' || state.lastError?.code !== 'RATE_LIMITED')
    return defect(t, 'stuck', input, `no decision within its deadline (${state?.phase})`);
  const held = s.sim.bookings({ customFields: { custom_field_10: o.orderId } });
  if (held.length > 0) defect(t, 'lost', input, `booking ${held[0]!.bookingId} held while refused`);
}

/**
 * At most one supplier booking per order, and the one that exists is in its decision — or, when
 * the supplier answered the booking under an id it does not keep, the order's guard flags it for
 * an operator (its first read finds no such booking): in front of a person, not lost.
 */
async function judgeBookings(t: Tally, s: Stack, o: Order, r: BookRoomResult, input: string) {
  const held = s.sim.bookings({ customFields: { custom_field_10: o.orderId } });
  if (held.length > 1) defect(t, 'duplicated', input, `${held.length} supplier bookings`);
  const booking = held[0];
  if (booking === undefined && r.bookingId !== undefined)
    defect(t, 'unclear', input, `decision names booking ${r.bookingId}, the supplier holds none`);
  if (booking === undefined || r.bookingId === booking.bookingId) return;
  const flag = await flagged(s, o.orderId);
  if (flag === undefined)
    defect(
      t,
      'lost',
      input,
      `booking ${booking.bookingId} held, decision ${r.outcome} names ${String(r.bookingId)}`,
    );
}

/** The order's flag for an operator, once its guard has read the booking (a few seconds). */
async function flagged(s: Stack, orderId: string): Promise<string | undefined> {
  for (let i = 0; i < 50; i++) {
    const state = await s.bookings.state(orderId).catch(() => undefined);
    if (state?.flag) return state.flag.reason;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** Runs `orders` whole orders at once, each with its booking answer spoiled. */
export async function runOrders(
  t: Tally,
  opts: { seed: number; orders: number; until: number },
): Promise<void> {
  captureLogs();
  const temporal = await surfaceTemporal();
  const sim = buildSimulator({
    companies: [FUZZ_COMPANY],
    seed: 7,
    // Booking ids name workflows (`cancel-<id>`) on a server other runs may share.
    firstBookingId: 3_000_000_000 + randomInt(0, 1_000_000) * 1_000,
  });
  const { origin } = await sim.listen(0, '127.0.0.1');
  const config = fuzzConfig(origin, temporal.env);
  const hotelApi = new HotelApiClient(config.hotelApi);
  const options = temporalConnectionOptions(config.temporal);
  const [connection, native] = await Promise.all([
    Connection.connect(options),
    NativeConnection.connect(options),
  ]);
  const dataConverter = createDataConverter(config.encryption);
  const taskQueue = `fuzz-supplier-${randomUUID().slice(0, 8)}`;
  logSink.line = (text) => {
    const leak = leaked(text);
    if (leak !== undefined)
      defect(t, 'leaks', 'a worker log line', `${leak}: ${text.slice(0, 200)}`);
  };
  const worker = await createBookingWorker({
    connection: native,
    namespace: config.temporal.namespace,
    taskQueue,
    hotelApi,
    dataConverter,
    workflowBundle: await loadWorkflowBundle(config.worker.workflowBundlePath),
    shutdownGraceTime: '1s',
  });
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  const stack = {
    sim,
    bookings: new BookingClient({ client, taskQueue }),
    bookingMs: config.hotelApi.timeouts.bookingMs,
  };
  const orders = fc
    .sample(fc.record({ kind: fc.constantFrom(...HOSTILE_KINDS), seed: fc.nat() }), {
      seed: opts.seed + 1,
      numRuns: opts.orders,
    })
    .map((o, i) => ({ ...o, orderId: `fuzz-${opts.seed}-${i}-${o.kind}` }));
  try {
    await worker.runUntil(
      Promise.all(
        orders.map(async (o) => {
          if (Date.now() > opts.until) return;
          t.inputs += 1;
          const what = `order × ${o.kind} × seed ${o.seed}`;
          const ended = await Promise.race([
            runOrder(t, stack, o).then(
              () => 'judged',
              (err: unknown) => defect(t, 'crashes', what, String(err)),
            ),
            new Promise((r) =>
              setTimeout(r, stack.bookingMs + 2 * DECISION_MARGIN_MS, 'late').unref(),
            ),
          ]);
          // A start or a query that never answers (a workflow task failing in a loop).
          if (ended === 'late') defect(t, 'stuck', what, 'its start or its state never answered');
        }),
      ),
    );
  } finally {
    logSink.line = undefined;
    await hotelApi.close();
    await Promise.all([connection.close(), native.close(), sim.close()]);
    await temporal.stop();
  }
}
