/**
 * The workers of the supplier accounts besides the default one (docs/supplier-accounts.md), made
 * here only: for each, its client, its catalogue beside `CATALOGUE_DB_PATH`, and an activities-only
 * worker on its own task queue (build-worker.ts `createSupplierAccountWorker`).
 */
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createSupplierAccountWorker } from './build-worker';
import { openSqliteCatalogueStore } from './catalogue/sqlite-store';
import type { CatalogueStore } from './catalogue/store';
import type { SupplierAccount } from './config';
import { HotelApiClient, type CallEvent } from './hotel-api';
import { catalogueDbPathFor, DEFAULT_SUPPLIER_ACCOUNT } from './shared/supplier-accounts';

export interface AccountWorkersOptions {
  readonly connection: NativeConnection;
  readonly namespace?: string;
  /** The booking task queue; each account's worker polls its queue beside it. */
  readonly taskQueue: string;
  /** Every configured account: the default one is skipped (its calls stay on the booking queue). */
  readonly accounts: readonly SupplierAccount[];
  readonly dataConverter: DataConverter;
  readonly orderIdField?: string;
  /** Each account's catalogue opens beside this file; absent: none (its content syncs fail). */
  readonly catalogueDbPath?: string;
  readonly shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
  /** Every finished supplier call, with its account (the metrics). */
  readonly onCall?: (call: CallEvent, account: string) => void;
  readonly onPollLateness?: (lateMs: number) => void;
  /** Wraps each worker's creation (the worker process waits with it for a Temporal that is down). */
  readonly creating?: (create: () => Promise<Worker>) => Promise<Worker>;
}

export interface AccountWorkers {
  /** One per account but the default, not yet running. */
  readonly workers: readonly Worker[];
  /** Closes the accounts' clients and catalogues, once their workers have stopped. */
  close(): Promise<void>;
}

export async function createAccountWorkers(o: AccountWorkersOptions): Promise<AccountWorkers> {
  // What every account's worker takes as it is (connection, queue, converter, field, grace).
  const { accounts, catalogueDbPath, onCall, creating, ...common } = o;
  const workers: Worker[] = [];
  const clients: HotelApiClient[] = [];
  const stores: CatalogueStore[] = [];
  const close = async () => {
    for (const client of clients) await client.close();
    for (const store of stores) await store.close();
  };
  try {
    for (const account of accounts.filter((a) => a.id !== DEFAULT_SUPPLIER_ACCOUNT)) {
      const hotelApi = new HotelApiClient(
        account.hotelApi,
        onCall ? { onCall: (call) => onCall(call, account.id) } : {},
      );
      clients.push(hotelApi);
      const path = catalogueDbPath && catalogueDbPathFor(catalogueDbPath, account.id);
      const catalogueStore = path ? openSqliteCatalogueStore({ path }) : undefined;
      if (catalogueStore) stores.push(catalogueStore);
      const create = () =>
        createSupplierAccountWorker({
          ...common,
          account: account.id,
          hotelApi,
          ...(catalogueStore ? { catalogueStore } : {}),
          maxConcurrentActivities: account.maxConcurrentCalls,
          maxActivitiesPerSecond: account.maxCallsPerSecond,
        });
      workers.push(await (creating ? creating(create) : create()));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { workers, close };
}
