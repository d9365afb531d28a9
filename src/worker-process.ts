/**
 * What a worker process runs (src/worker.ts): the booking worker, the order events' worker when
 * events are on, and one per other supplier account: run together, stopped together, closed once.
 */
import { existsSync } from 'node:fs';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import { localCallsPerSecond } from './activities/local-supplier-budget';
import { createAccountWorkers, type AccountWorkers } from './account-workers';
import { createBookingWorker, createOrderEventsWorker } from './build-worker';
import { describeTemporalSecurity } from './client/connection-options';
import { openSqliteCatalogueStore } from './catalogue/sqlite-store';
import type { CatalogueStore } from './catalogue/store';
import { createDataConverter } from './codec/data-converter';
import { HotelApiClient } from './hotel-api';
import type { SmallServer } from './observability/http-server';
import type { createWorkerMetrics } from './observability/metrics';
import { defined } from './shared/defined';
import { DEFAULT_SUPPLIER_ACCOUNT } from './shared/supplier-accounts';
import type { WorkerConfig } from './worker-config';
import { loadWorkflowBundle } from './workflow-bundle';
import { CALL_REPORT_MARGIN_MS, shutdownGraceMsFor } from './workflows/activity-options';

/** What the process runs, for the signal handler, readiness and the final clean-up. */
export class WorkerProcess {
  worker: Worker | undefined;
  /** Order events on: the second worker, delivering them (build-worker.ts). */
  eventsWorker: Worker | undefined;
  /** A worker for each supplier account other than the default (account-workers.ts). */
  accounts: AccountWorkers | undefined;
  connection: NativeConnection | undefined;
  draining = false;
  /** Aborted by a shutdown signal: ends the wait for Temporal during start-up. */
  readonly startup = new AbortController();
  /** Why the start-up waits, while it waits for Temporal (for `/readyz`). */
  waitingFor: string | undefined;
  health: SmallServer | undefined;
  metricsServer: SmallServer | undefined;
  /** The default account's client and content catalogue. */
  hotelApi: HotelApiClient | undefined;
  catalogueStore: CatalogueStore | undefined;

  workers(): Worker[] {
    return [this.worker, this.eventsWorker, ...(this.accounts?.workers ?? [])].filter(
      (w): w is Worker => w !== undefined,
    );
  }

  stopPolling(): void {
    stopRunning(this.workers());
  }

  async close(): Promise<void> {
    await this.hotelApi?.close();
    await this.catalogueStore?.close();
    await this.accounts?.close();
    await this.connection?.close();
    await this.metricsServer?.close();
    await this.health?.close();
  }
}

/** The booking worker and, with order events on, the events worker. */
export async function createWorkers(
  config: WorkerConfig,
  conn: NativeConnection,
  metrics: ReturnType<typeof createWorkerMetrics>,
  proc: WorkerProcess,
  log: Logger,
  untilAnswered: <T>(step: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const hotelApi = new HotelApiClient(config.hotelApi, {
    onCall: (call) => metrics.recordSupplierCall(call, DEFAULT_SUPPLIER_ACCOUNT),
  });
  proc.hotelApi = hotelApi;
  const bundlePath = config.worker.workflowBundlePath;
  if (bundlePath !== undefined && !existsSync(bundlePath)) {
    log.warn({ bundlePath }, 'WORKFLOW_BUNDLE_PATH does not exist: bundling workflows now');
  }
  // The embedded content catalogue (SQLite, one file per worker host): content sync writes it.
  const catalogueStore = openSqliteCatalogueStore({ path: config.catalogueDbPath });
  proc.catalogueStore = catalogueStore;
  const workflowBundle = await loadWorkflowBundle(bundlePath);
  // Where every worker of the process polls, and how it reads payloads.
  const on = {
    connection: conn,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    dataConverter: createDataConverter(config.encryption),
  };
  proc.worker = await untilAnswered(() =>
    createBookingWorker({
      ...on,
      ...defined({ orderEvents: config.orderEvents, localCallsPerSecond: localReadsSet(config) }),
      catalogueStore,
      hotelApi,
      orderIdField: config.orderIdField,
      workflowBundle,
      maxConcurrentActivities: config.worker.maxConcurrentSupplierCalls,
      maxActivitiesPerSecond: config.worker.maxSupplierCallsPerSecond,
      shutdownGraceTime: config.worker.shutdownGraceMs,
      maxCachedWorkflows: config.worker.maxCachedWorkflows,
      onPollLateness: metrics.recordPollLateness,
      accounts: config.suppliers,
    }),
  );
  proc.accounts = await createAccountWorkers({
    ...on,
    accounts: config.suppliers,
    orderIdField: config.orderIdField,
    catalogueDbPath: config.catalogueDbPath,
    shutdownGraceTime: config.worker.shutdownGraceMs,
    onCall: metrics.recordSupplierCall,
    onPollLateness: metrics.recordPollLateness,
    creating: untilAnswered,
  });
  const endpoint = config.orderEvents;
  if (endpoint) {
    proc.eventsWorker = await untilAnswered(() =>
      createOrderEventsWorker({ ...on, endpoint, workflowBundle }),
    );
  }
  warnOfShortGrace(config, log);
}

/** A grace shorter than a booking call may take leaves a booking cut off by SIGTERM to a person. */
function warnOfShortGrace(config: WorkerConfig, log: Logger): void {
  const graceNeeded = shutdownGraceMsFor(config.hotelApi.timeouts.bookingMs);
  if (config.worker.shutdownGraceMs < graceNeeded) {
    log.warn(
      { shutdownGraceMs: config.worker.shutdownGraceMs, graceNeeded },
      `SHUTDOWN_GRACE_MS is shorter than a booking call may take (HOTEL_API_BOOKING_TIMEOUT_MS + ${CALL_REPORT_MARGIN_MS} ms): a SIGTERM during a slow booking call leaves that order to an operator. Unset it to derive it.`,
    );
  }
}

/**
 * The local supplier-read budget as set: `SUPPLIER_LOCAL_CALLS_PER_SECOND`, else none at all with
 * several accounts (each account's calls then stay on its own queue, slots and cap), else unset.
 */
function localReadsSet(config: WorkerConfig): number | undefined {
  return config.worker.localSupplierCallsPerSecond ?? (config.suppliers.length > 1 ? 0 : undefined);
}

export function logPolling(config: WorkerConfig, log: Logger): void {
  log.info(
    {
      taskQueue: config.temporal.taskQueue,
      namespace: config.temporal.namespace,
      temporalAddress: config.temporal.address,
      supplier: config.hotelApi.baseUrl,
      maxSupplierCallsPerSecond: config.worker.maxSupplierCallsPerSecond || 'unlimited',
      localSupplierCallsPerSecond: localCallsPerSecond(
        config.worker.maxSupplierCallsPerSecond,
        localReadsSet(config),
      ),
      supplierAccounts: config.suppliers.map(
        (a) =>
          `${a.id}${a.enabled ? '' : ' (disabled)'} ${new URL(a.hotelApi.baseUrl).origin} ${a.maxCallsPerSecond || 'unlimited'}/s`,
      ),
      maxConcurrentSupplierCalls: config.worker.maxConcurrentSupplierCalls,
      encryptionKeyId: config.encryption.keys[0].id,
      temporalConnection: describeTemporalSecurity(config.temporal),
      orderEvents: config.orderEvents ? new URL(config.orderEvents.url).origin : 'off',
    },
    'worker polling',
  );
}

function stopRunning(workers: readonly Worker[]): void {
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
}

/** Runs the workers until all have stopped; one failing stops the others, its error rethrown. */
export async function runTogether(workers: readonly Worker[]): Promise<void> {
  const results = await Promise.allSettled(
    workers.map((w) =>
      w.run().catch((err: unknown) => {
        stopRunning(workers);
        throw err;
      }),
    ),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}
