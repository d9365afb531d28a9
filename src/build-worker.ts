/** Builds the workers: the one place that wires workflows, activities and worker options. */
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
   * Workflows kept in memory between their tasks. A waiting booking needs no cache (its polls are
   * activity retries), and the SDK's default (from the heap limit: ~2,300 at 24 GiB) took 1,000
   * waiting bookings to 1,830 MiB RSS, against 741 at 100, throughput unchanged. @default 100
   */
  readonly maxCachedWorkflows?: number;
  /** Fleet-wide cap on activities per second on this task queue (the server enforces it). */
  readonly maxActivitiesPerSecond?: number;
  /**
   * Supplier reads per second made as local activities, outside the task queue's cap
   * (activities/local-supplier-budget.ts). @default unlimited, 0 with `maxActivitiesPerSecond`
   */
  readonly localCallsPerSecond?: number;
  /** How long running activities may finish after SIGTERM. @default '30s' */
  readonly shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
  readonly onPollLateness?: (lateMs: number) => void;
  /** Where content syncs store the catalogue; without it content-sync activities fail. */
  readonly catalogueStore?: CatalogueStore;
  /** Where order events go (`ORDER_EVENTS_URL`); absent: none are announced. */
  readonly orderEvents?: OrderEventsEndpoint;
  /** Configured accounts: new orders of others or of disabled ones are refused. @default default */
  readonly accounts?: readonly { readonly id: string; readonly enabled: boolean }[];
  /** Activities registered beside the product's (the bench's control). */
  readonly extraActivities?: Readonly<Record<string, (...args: never[]) => Promise<unknown>>>;
  /** Extra options, for tests and benchmarks. */
  readonly overrides?: Partial<WorkerOptions>;
}

/**
 * Activity task pollers kept waiting at the server (the SDK's default is 10): a task dispatched
 * when no poll waits goes to the backlog in the database. Bench, 240 polls/s: with 10 pollers 4 %
 * of polls started 5-20 s late (p99 8.9 s); with 40, none over 1 s (p99 0.8 s).
 */
const ACTIVITY_POLLERS = 40;

/**
 * How far V8 lets a heap grow past what survived its last full collection before the next one: 1 +
 * this / 100 times. V8's own factor, up to 4 with a large heap limit, let the workflow thread's
 * heap (short-lived sandbox garbage per workflow) grow from ~150 MB live to ~590 MB between full
 * collections, and the RSS followed (bench/results/log.md).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The largest semi-space of V8's young generation, MiB (V8's default: 16, up to ~48 MiB resident in
 * each of the worker's two isolates). At 1 the worker started at 165 MiB RSS instead of 208 and
 * stayed at 267 instead of 350 with 500 bookings waiting; workflow task time did not change
 * measurably (bench/results/log.md "Memory of the worker").
 */
export const MAX_SEMI_SPACE_MIB = 1;

/** The V8 flags of a worker process, by name: one place for each. */
export const WORKER_V8_FLAGS: Readonly<Record<string, number>> = {
  'heap-growing-percent': HEAP_GROWING_PERCENT,
  'max-semi-space-size': MAX_SEMI_SPACE_MIB,
};

/**
 * The V8 flags {@link createBookingWorker} sets, less those the command line sets (`-` or `_`).
 * They reach the workflow thread, started after them; the main thread's young generation is sized
 * before any code runs, so `--max-semi-space-size` is also passed in the image's `NODE_OPTIONS`.
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

/** What the booking and account workers share: namespace, converter, slots, pollers, rate, grace. */
function activityWorkerOptions(o: BookingWorkerOptions | SupplierAccountWorkerOptions) {
  const maxActivities = o.maxConcurrentActivities ?? DEFAULT_MAX_CONCURRENT_CALLS;
  return {
    connection: o.connection,
    namespace: o.namespace ?? DEFAULT_NAMESPACE,
    dataConverter: workerDataConverter(o.dataConverter),
    maxConcurrentActivityTaskExecutions: maxActivities,
    maxConcurrentActivityTaskPolls: Math.min(ACTIVITY_POLLERS, maxActivities),
    ...(o.maxActivitiesPerSecond
      ? { maxTaskQueueActivitiesPerSecond: o.maxActivitiesPerSecond }
      : {}),
    shutdownGraceTime: o.shutdownGraceTime ?? '30s',
  };
}

export async function createBookingWorker(o: BookingWorkerOptions): Promise<Worker> {
  // Before Worker.create: it starts the workflow thread, whose heap takes V8's flags then.
  for (const flag of workerV8Flags(process.execArgv)) setFlagsFromString(flag);
  return Worker.create({
    ...activityWorkerOptions(o),
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
    maxCachedWorkflows: o.maxCachedWorkflows ?? DEFAULT_MAX_CACHED_WORKFLOWS,
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
 * A supplier account's worker (not the default's): activities only, on the account's own task
 * queue, with its client, slots and rate cap, so an account that hangs holds only its own slots.
 */
export async function createSupplierAccountWorker(
  o: SupplierAccountWorkerOptions,
): Promise<Worker> {
  return Worker.create({
    ...activityWorkerOptions(o),
    taskQueue: supplierTaskQueue(o.taskQueue, o.account),
    activities: createSupplierActivities({
      hotelApi: o.hotelApi,
      orderIdField: o.orderIdField ?? DEFAULT_ORDER_ID_FIELD,
      ...(o.onPollLateness ? { onPollLateness: o.onPollLateness } : {}),
      ...(o.catalogueStore ? { catalogueStore: o.catalogueStore } : {}),
    }),
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
  readonly shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
}

/**
 * The order events' worker: deliveries on their own task queue, so a slow order system takes no
 * slot a booking needs and counts against no supplier cap.
 */
export async function createOrderEventsWorker(o: OrderEventsWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace ?? DEFAULT_NAMESPACE,
    taskQueue: orderEventsTaskQueue(o.taskQueue),
    workflowBundle: o.workflowBundle ?? (await loadWorkflowBundle()),
    activities: createOrderEventActivities(o.endpoint),
    dataConverter: workerDataConverter(o.dataConverter),
    maxConcurrentActivityTaskExecutions: 20, // deliveries in flight
    maxCachedWorkflows: 50,
    shutdownGraceTime: o.shutdownGraceTime ?? '15s',
  });
}
