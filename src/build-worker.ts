/**
 * Builds the booking worker: the one place that wires workflows, activities and worker options,
 * used by `npm run worker`, the local stack, tests and benchmarks.
 */
import { setFlagsFromString } from 'node:v8';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { createActivities, createSupplierActivities } from './activities';
import { supplierTaskQueue } from './shared/supplier-accounts';
import { localCallsPerSecond } from './activities/local-supplier-budget';
import { createOrderEventActivities, type OrderEventsEndpoint } from './order-events/activities';
import { orderEventsTaskQueue } from './order-events/contract/delivery';
import type { CatalogueStore } from './catalogue/store';
import type { HotelApiClient } from './hotel-api';
import {
  DEFAULT_MAX_CACHED_WORKFLOWS,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_NAMESPACE,
  DEFAULT_ORDER_ID_FIELD,
} from './config/defaults';
import { loadWorkflowBundle } from './workflow-bundle';
import { workerDataConverter } from './codec/worker-codecs';

export interface BookingWorkerOptions {
  readonly connection: NativeConnection;
  /** @default DEFAULT_NAMESPACE */
  readonly namespace?: string;
  readonly taskQueue: string;
  readonly hotelApi: HotelApiClient;
  /** The custom field that carries the order id. @default DEFAULT_ORDER_ID_FIELD */
  readonly orderIdField?: string;
  /** A prebuilt bundle (src/workflow-bundle.ts `loadWorkflowBundle`); else bundled now. */
  readonly workflowBundle?: WorkerOptions['workflowBundle'];
  /** The project's data converter (payload encryption): `createDataConverter(config.encryption)`. */
  readonly dataConverter: DataConverter;
  /** Per-worker cap on concurrent activities, i.e. on concurrent supplier calls. @default 100 */
  readonly maxConcurrentActivities?: number;
  /**
   * Workflows kept in memory between their workflow tasks. Each cost about 1.3 MB of worker
   * memory when every workflow built its own copy of the zod schemas (it no longer does for a valid
   * input: src/workflows/input-checks.ts), and
   * the SDK's default sizes the cache from the V8 heap limit: about 2,300 on a machine with 24 GiB,
   * which took the worker to 1.8 GiB RSS with 1,000 bookings waiting. A booking waiting for
   * confirmation needs no cache (its polls are activity retries; it has one more workflow task,
   * replayed from its short history), so the cache only has to hold the bookings in flight.
   * Bench: 1,000 waiting bookings 1,830 -> 741 MiB RSS; throughput at 50 in flight unchanged.
   * @default 100
   */
  readonly maxCachedWorkflows?: number;
  /** Fleet-wide cap on activities per second on this task queue (the server enforces it). */
  readonly maxActivitiesPerSecond?: number;
  /**
   * Supplier reads per second this worker makes as local activities, outside the task queue and
   * its cap (activities/local-supplier-budget.ts). @default unlimited without
   * `maxActivitiesPerSecond`, none with it
   */
  readonly localCallsPerSecond?: number;
  /** How long running activities may finish after SIGTERM. @default '30s' */
  readonly shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
  readonly onPollLateness?: (lateMs: number) => void;
  /** Where content syncs store the catalogue; without it content-sync activities fail. */
  readonly catalogueStore?: CatalogueStore;
  /** Where order events go (`ORDER_EVENTS_URL`); absent: none are announced. */
  readonly orderEvents?: OrderEventsEndpoint;
  /**
   * Every configured supplier account (id, enabled): new orders of an account not named here,
   * or disabled, are refused. @default the default account alone, enabled
   */
  readonly accounts?: readonly { readonly id: string; readonly enabled: boolean }[];
  /** Activities registered beside the product's (the bench's control). */
  readonly extraActivities?: Readonly<Record<string, (...args: never[]) => Promise<unknown>>>;
  /** Extra options, for tests and benchmarks. */
  readonly overrides?: Partial<WorkerOptions>;
}

/**
 * Activity task pollers kept waiting at the server (the SDK's default is 10). Every poll of a
 * waiting booking is an activity task: when no poll is waiting as it is dispatched, the task goes
 * to the task queue's backlog in the database and waits there. Bench, 5,000 bookings polled every
 * 15-20 s (240 polls/s): with 10 pollers 4 % of polls started 5-20 s late (p99 8.9 s); with 40,
 * none over 1 s (p99 0.8 s).
 */
const ACTIVITY_POLLERS = 40;

/**
 * How far V8 lets a heap grow past what survived its last full garbage collection before it runs
 * the next one: 1 + this / 100 times. Without it V8 picks the factor itself, up to 4 on a machine
 * with a large heap limit (24 GiB here: a 4 GiB limit), and the SDK's workflow thread, whose
 * sandbox leaves short-lived garbage for each workflow it creates (~1.3 MB when every workflow
 * evaluated its own copy of the workflow modules), let its heap grow from ~150 MB live to ~590 MB
 * between full collections (memory probe, 200 bookings), and the worker's RSS followed. Load
 * drill and bench: bench/results/log.md.
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The largest semi-space of V8's young generation, MiB (the young generation is three of them).
 * V8's default on 64 bits is 16: up to ~48 MiB of young generation in each of the worker's two
 * isolates (main thread, workflow thread), most of it resident once touched. At 1 the worker
 * started at 165 MiB RSS instead of 208 and stayed at 267 instead of 350 MiB with 500 bookings
 * waiting (bench `scale`, bench/results/log.md "Memory of the worker"); scavenges run more often, and
 * bookRoom's workflow task time did not change measurably (same section).
 */
export const MAX_SEMI_SPACE_MIB = 1;

/** The V8 flags of a worker process, by name: one place for each. */
export const WORKER_V8_FLAGS: Readonly<Record<string, number>> = {
  'heap-growing-percent': HEAP_GROWING_PERCENT,
  'max-semi-space-size': MAX_SEMI_SPACE_MIB,
};

/**
 * The V8 flags {@link createBookingWorker} sets, less those the process's command line sets itself
 * (either spelling, `-` or `_`: experiments, e.g. `--heap-growing-percent=0` for V8's own factor).
 * Set at run time, they reach the SDK's workflow thread, whose isolate Worker.create starts after
 * them (and the heap growing factor the main thread at its next collection); the main thread's
 * young generation was sized before any code ran, so the image passes `--max-semi-space-size` in
 * `NODE_OPTIONS` (Dockerfile) and the bench on the worker's command line ({@link workerNodeFlags}).
 */
export function workerV8Flags(execArgv: readonly string[]): string[] {
  const onCommandLine = (name: string) => {
    const pattern = new RegExp(`^--${name.replace(/-/g, '[-_]')}(=|$)`);
    return execArgv.some((arg) => pattern.test(arg));
  };
  return Object.entries(WORKER_V8_FLAGS)
    .filter(([name]) => !onCommandLine(name))
    .map(([name, value]) => `--${name}=${value}`);
}

/** The same flags for node's command line (the bench's worker process). */
export function workerNodeFlags(): string[] {
  return workerV8Flags([]);
}

/**
 * An activity worker's slots, its pollers, and its task queue's fleet-wide rate (the server
 * enforces it): the booking worker's and each supplier account's, one rule.
 */
function activitySlots(maxActivities: number, perSecond: number | undefined) {
  return {
    maxConcurrentActivityTaskExecutions: maxActivities,
    maxConcurrentActivityTaskPolls: Math.min(ACTIVITY_POLLERS, maxActivities),
    ...(perSecond ? { maxTaskQueueActivitiesPerSecond: perSecond } : {}),
  };
}

export async function createBookingWorker(o: BookingWorkerOptions): Promise<Worker> {
  const maxActivities = o.maxConcurrentActivities ?? DEFAULT_MAX_CONCURRENT_CALLS;
  // Before Worker.create: it starts the workflow thread, whose heap takes V8's flags then.
  for (const flag of workerV8Flags(process.execArgv)) setFlagsFromString(flag);
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace ?? DEFAULT_NAMESPACE,
    taskQueue: o.taskQueue,
    workflowBundle: o.workflowBundle ?? (await loadWorkflowBundle()),
    activities: {
      ...createActivities({
        hotelApi: o.hotelApi,
        orderIdField: o.orderIdField ?? DEFAULT_ORDER_ID_FIELD,
        localCallsPerSecond: localCallsPerSecond(o.maxActivitiesPerSecond, o.localCallsPerSecond),
        ...(o.onPollLateness ? { onPollLateness: o.onPollLateness } : {}),
        ...(o.catalogueStore ? { catalogueStore: o.catalogueStore } : {}),
        ...(o.orderEvents ? { orderEvents: o.orderEvents } : {}),
        ...(o.accounts ? { accounts: o.accounts } : {}),
      }),
      ...o.extraActivities,
    },
    dataConverter: workerDataConverter(o.dataConverter),
    ...activitySlots(maxActivities, o.maxActivitiesPerSecond),
    maxCachedWorkflows: o.maxCachedWorkflows ?? DEFAULT_MAX_CACHED_WORKFLOWS,
    shutdownGraceTime: o.shutdownGraceTime ?? '30s',
    ...o.overrides,
  });
}

/** A supplier account's worker: the booking worker's options that apply, and the account. */
export interface SupplierAccountWorkerOptions extends Pick<
  BookingWorkerOptions,
  | 'connection'
  | 'namespace'
  | 'hotelApi'
  | 'dataConverter'
  | 'orderIdField'
  | 'maxConcurrentActivities'
  | 'maxActivitiesPerSecond'
  | 'shutdownGraceTime'
  | 'onPollLateness'
  | 'catalogueStore'
  | 'overrides'
> {
  /** The booking task queue; the account's worker polls `supplierTaskQueue()` of it. */
  readonly taskQueue: string;
  /** The account's id (not the default account: its calls stay on the booking task queue). */
  readonly account: string;
}

/**
 * A supplier account's worker (an account other than the default): activities only, on the
 * account's own task queue (src/shared/supplier-accounts.ts), with the account's client, slots
 * and fleet-wide rate cap. An account that hangs holds only its own slots; its backlog waits on
 * its own queue.
 */
export async function createSupplierAccountWorker(
  o: SupplierAccountWorkerOptions,
): Promise<Worker> {
  const maxActivities = o.maxConcurrentActivities ?? DEFAULT_MAX_CONCURRENT_CALLS;
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace ?? DEFAULT_NAMESPACE,
    taskQueue: supplierTaskQueue(o.taskQueue, o.account),
    activities: createSupplierActivities({
      hotelApi: o.hotelApi,
      orderIdField: o.orderIdField ?? DEFAULT_ORDER_ID_FIELD,
      ...(o.onPollLateness ? { onPollLateness: o.onPollLateness } : {}),
      ...(o.catalogueStore ? { catalogueStore: o.catalogueStore } : {}),
    }),
    dataConverter: workerDataConverter(o.dataConverter),
    ...activitySlots(maxActivities, o.maxActivitiesPerSecond),
    shutdownGraceTime: o.shutdownGraceTime ?? '30s',
    ...o.overrides,
  });
}

export interface OrderEventsWorkerOptions {
  readonly connection: NativeConnection;
  /** @default DEFAULT_NAMESPACE */
  readonly namespace?: string;
  /** The booking task queue; the events worker polls `orderEventsTaskQueue()` of it. */
  readonly taskQueue: string;
  readonly endpoint: OrderEventsEndpoint;
  readonly workflowBundle?: WorkerOptions['workflowBundle'];
  readonly dataConverter: DataConverter;
  /** Deliveries in flight per worker. @default 20 */
  readonly maxConcurrentDeliveries?: number;
  readonly shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
}

/**
 * The second worker of a worker process when order events are on: the delivery workflows and
 * their POSTs, on their own task queue, so a slow order system takes no slot a booking needs and
 * its deliveries count against no supplier cap.
 */
export async function createOrderEventsWorker(o: OrderEventsWorkerOptions): Promise<Worker> {
  const maxDeliveries = o.maxConcurrentDeliveries ?? 20;
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace ?? DEFAULT_NAMESPACE,
    taskQueue: orderEventsTaskQueue(o.taskQueue),
    workflowBundle: o.workflowBundle ?? (await loadWorkflowBundle()),
    activities: createOrderEventActivities(o.endpoint),
    dataConverter: workerDataConverter(o.dataConverter),
    maxConcurrentActivityTaskExecutions: maxDeliveries,
    maxCachedWorkflows: 50,
    shutdownGraceTime: o.shutdownGraceTime ?? '15s',
  });
}
