/**
 * A booking stack for one test file: the simulator over real HTTP (port 0, inspection on), the
 * real hotel API client, a real worker on its own task queue, and the typed booking client.
 */
import { randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import {
  BookingClient,
  type BookRoomInput,
  type BookRoomResult,
  type BookingWorkflow,
} from '../../src/client';
import { outcomeUpdate } from '../../src/shared/booking-messages';
import type { OrderEventsEndpoint } from '../../src/order-events/activities';
import {
  createBookingWorker,
  createOrderEventsWorker,
  createSupplierAccountWorker,
  type BookingWorkerOptions,
} from '../../src/build-worker';
import { DEFAULT_SUPPLIER_ACCOUNT } from '../../src/shared/supplier-accounts';
import type { HotelApiConfig } from '../../src/hotel-api/client';
import { HotelApiClient } from '../../src/hotel-api';
import { buildSimulator, type Simulator, type SimulatorOptions } from '../../tools/simulator';
import { scenarioOptionId, type ScenarioName } from '../../tools/simulator/scenarios';
import {
  connectTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from './temporal';

export const COMPANY = { key: 'test-key', secret: 'test-secret-0123456789' } as const;

/** Fast polling for tests: the production defaults poll every 5 s and up. */
export const FAST_POLLING = {
  initialInterval: '50ms',
  maximumInterval: '200ms',
  backoffCoefficient: 1.5,
};

export interface BookingStack {
  readonly temporal: TestTemporal;
  readonly sim: Simulator;
  readonly simUrl: string;
  readonly hotelApi: HotelApiClient;
  readonly bookings: BookingClient;
  readonly taskQueue: string;
  readonly worker: Worker;
  close(): Promise<void>;
}

export function hotelApiConfig(
  baseUrl: string,
  overrides: Partial<HotelApiConfig> = {},
): HotelApiConfig {
  return {
    baseUrl,
    key: COMPANY.key,
    secret: COMPANY.secret,
    timeouts: { bookingMs: 10_000, readMs: 5_000, searchMs: 5_000 },
    clockCorrection: true,
    maxConnections: 16,
    ...overrides,
  };
}

/** Starts the simulator, a worker and a client; `close()` stops them all. */
export async function startBookingStack(
  name: string,
  options: {
    simulator?: SimulatorOptions;
    /** Put this between the hotel API client and the simulator (e.g. a fault proxy). */
    front?: (simUrl: string) => Promise<{ url: string; close(): Promise<void> }>;
    /** Order events on: the worker announces them and a second worker delivers them here. */
    orderEvents?: OrderEventsEndpoint;
    /** The workflow the stack's client starts. @default the client's default */
    workflow?: BookingWorkflow;
    /**
     * Supplier accounts besides the default, each a company of the stack's simulator with a
     * worker of its own, as `npm run worker` runs `SUPPLIER_ACCOUNTS`. @default none
     */
    accounts?: readonly { readonly id: string; readonly key: string; readonly secret: string }[];
  } = {},
): Promise<BookingStack> {
  const sim = buildSimulator({
    companies: [
      { ...COMPANY, active: true },
      { key: 'other-key', secret: 'other-secret-0123456789', active: true },
      ...(options.accounts ?? []).map((a) => ({ key: a.key, secret: a.secret, active: true })),
    ],
    inspection: true,
    seed: 42,
    // Booking ids name workflows (`cancel-<bookingId>`) on the one server all test files share:
    // each stack issues its own range, so two simulators never hand out the same id.
    firstBookingId: 1_000_000_000 + randomInt(0, 1_000_000) * 1_000,
    ...options.simulator,
  });
  const { url } = await sim.listen(0, '127.0.0.1');
  const simUrl = url.replace(/\/api\/v1\/?$/, '');
  const front = options.front ? await options.front(simUrl) : undefined;
  const temporal = await connectTemporal();
  const hotelApi = new HotelApiClient(hotelApiConfig(front?.url ?? simUrl));
  const taskQueue = uniqueTaskQueue(name);
  const worker = await createBookingWorker({
    workflowBundle: await testWorkflowBundle(),
    connection: temporal.nativeConnection,
    taskQueue,
    hotelApi,
    dataConverter: testDataConverter,
    shutdownGraceTime: '2s',
    ...(options.orderEvents ? { orderEvents: options.orderEvents } : {}),
    ...(options.accounts
      ? {
          accounts: [DEFAULT_SUPPLIER_ACCOUNT, ...options.accounts.map((a) => a.id)].map((id) => ({
            id,
            enabled: true,
          })),
          localCallsPerSecond: 0,
        }
      : {}),
  });
  const accountClients = (options.accounts ?? []).map(
    (a) =>
      new HotelApiClient(hotelApiConfig(front?.url ?? simUrl, { key: a.key, secret: a.secret })),
  );
  const accountWorkers = await Promise.all(
    (options.accounts ?? []).map((a, i) =>
      createSupplierAccountWorker({
        connection: temporal.nativeConnection,
        taskQueue,
        account: a.id,
        hotelApi: accountClients[i]!,
        dataConverter: testDataConverter,
        shutdownGraceTime: '2s',
      }),
    ),
  );
  const eventsWorker = options.orderEvents
    ? await createOrderEventsWorker({
        workflowBundle: await testWorkflowBundle(),
        connection: temporal.nativeConnection,
        taskQueue,
        endpoint: options.orderEvents,
        dataConverter: testDataConverter,
        shutdownGraceTime: '2s',
      })
    : undefined;
  const running = Promise.all([
    worker.run(),
    eventsWorker?.run(),
    ...accountWorkers.map((w) => w.run()),
  ]);
  const bookings = new BookingClient({
    client: temporal.client,
    taskQueue,
    ...(options.workflow ? { workflow: options.workflow } : {}),
  });
  return {
    temporal,
    sim,
    simUrl,
    hotelApi,
    bookings,
    taskQueue,
    worker,
    async close() {
      worker.shutdown();
      eventsWorker?.shutdown();
      for (const w of accountWorkers) w.shutdown();
      await running;
      await hotelApi.close();
      for (const c of accountClients) await c.close();
      await temporal.close();
      await front?.close();
      await sim.close();
    },
  };
}

/**
 * One more booking worker on the stack's server and supplier, for a task queue of the test's own
 * (a worker that comes late, or is restarted); `options` change the stack's settings.
 */
export function stackWorker(
  s: Pick<BookingStack, 'temporal' | 'hotelApi'>,
  taskQueue: string,
  options: Partial<BookingWorkerOptions> = {},
): Promise<Worker> {
  return testWorkflowBundle().then((workflowBundle) =>
    createBookingWorker({
      workflowBundle,
      connection: s.temporal.nativeConnection,
      taskQueue,
      hotelApi: s.hotelApi,
      dataConverter: testDataConverter,
      shutdownGraceTime: '1s',
      ...options,
    }),
  );
}

let orderCounter = 0;
/** A unique, valid order id. */
export function newOrderId(tag: string): string {
  orderCounter += 1;
  return `ord-${tag}-${process.pid}-${Date.now().toString(36)}-${orderCounter}`;
}

/** A valid booking input for `scenario`, with fast polling. */
export function bookingInput(
  scenario: ScenarioName,
  overrides: Partial<BookRoomInput> & { param?: number } = {},
): BookRoomInput {
  const { param, ...rest } = overrides;
  return {
    orderId: newOrderId(scenario),
    optionId: scenarioOptionId(scenario, param !== undefined ? { param } : {}),
    rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
    contact: { phonePrefix: '+39', phone: '3331234567', email: 'ada@example.com' },
    polling: FAST_POLLING,
    ...rest,
  };
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** The supplier's bookings that carry `orderId` in the order-id field (what it really received). */
export function supplierBookings(stack: Pick<BookingStack, 'sim'>, orderId: string) {
  return stack.sim.bookings({ customFields: { custom_field_10: orderId } });
}

/** The order's state once its phase is `phase` (fails after 30 s). */
export function phaseOf(stack: Pick<BookingStack, 'bookings'>, orderId: string, phase: string) {
  return eventually(
    async () => {
      const st = await stack.bookings.state(orderId);
      return st.phase === phase ? st : undefined;
    },
    30_000,
    `phase ${phase}`,
  );
}

/**
 * Saves a finished workflow's history under test/histories/ when RECORD_HISTORIES=1 (in its
 * subfolder `RECORD_HISTORIES_INTO` when set: a new shape of the workflows records beside the
 * histories of the shapes before it, which must all keep replaying), for the replay test that
 * guards running workflows against incompatible code changes.
 */
export async function maybeRecordHistory(
  stack: BookingStack,
  workflowId: string,
  name: string,
): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const dir = join(__dirname, '..', 'histories', process.env.RECORD_HISTORIES_INTO ?? '');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(history));
}

/**
 * A workflow's decision, as any caller learns it: the `outcome` update while it runs (a CONFIRMED
 * order's workflow goes on guarding it), its result once it has closed.
 */
export async function decisionOf(handle: WorkflowHandle): Promise<BookRoomResult> {
  try {
    return await handle.executeUpdate(outcomeUpdate);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return (await handle.result()) as BookRoomResult;
    throw err;
  }
}
