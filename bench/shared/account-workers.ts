/**
 * Supplier accounts in a bench worker process, as `npm run worker` runs them (src/worker.ts):
 * `SUPPLIER_ACCOUNTS` read by the product's loader (src/config/accounts.ts), every account told to
 * the booking worker, and beside it an activities-only worker per account other than the default,
 * on the account's own task queue, with its own client, slots and fleet-wide cap
 * (src/account-workers.ts `createAccountWorkers`).
 */
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { createAccountWorkers } from '../../src/account-workers';
import { loadSupplierAccounts, type SupplierAccount } from '../../src/config/accounts';
import { DEFAULT_MAX_CONCURRENT_CALLS } from '../../src/config/defaults';
import type { HotelApiConfig } from '../../src/hotel-api';

/**
 * Every account as the worker process loads them: the default one (`defaultApi`, its cap
 * `capPerSecond`) first, then those of the `SUPPLIER_ACCOUNTS` JSON. A problem throws, one line each.
 */
export function loadBenchAccounts(
  json: string,
  defaultApi: HotelApiConfig,
  capPerSecond = 0,
): readonly SupplierAccount[] {
  const problems: string[] = [];
  const env = {
    SUPPLIER_ACCOUNTS: json,
    SUPPLIER_ACCOUNTS_FILE: undefined,
    SUPPLIER_DEFAULT_ENABLED: true,
    SUPPLIER_MAX_CALLS_PER_SECOND: capPerSecond,
    SUPPLIER_MAX_CONCURRENT_CALLS: DEFAULT_MAX_CONCURRENT_CALLS,
  };
  const accounts = loadSupplierAccounts(env, defaultApi, problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return accounts;
}

export interface AccountWorkers {
  /** Runs until stopped; never rejects (a worker that fails is logged). */
  readonly running: Promise<void>;
  stop(): Promise<void>;
}

/** The activities-only worker of each account but the default, running. */
export async function startAccountWorkers(o: {
  readonly connection: NativeConnection;
  readonly taskQueue: string;
  readonly accounts: readonly SupplierAccount[];
  readonly dataConverter: DataConverter;
}): Promise<AccountWorkers> {
  const made = await createAccountWorkers({ ...o, shutdownGraceTime: '2s' });
  const running = Promise.all(
    made.workers.map((w) =>
      w.run().catch((err: unknown) => console.error('[bench account worker] stopped with', err)),
    ),
  ).then(() => undefined);
  return {
    running,
    async stop() {
      for (const w of made.workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await made.close();
    },
  };
}
