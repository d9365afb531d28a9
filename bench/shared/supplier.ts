/**
 * The supplier the bench's simulator plays, how the bench's clients of it are configured, and the
 * further supplier accounts a part names (each a company of the simulator, in the workers'
 * `SUPPLIER_ACCOUNTS`).
 */
import type { HotelApiConfig } from '../../src/hotel-api/client';

/** The supplier account the bench's simulator accepts and its clients sign with. */
export const BENCH_COMPANY = { key: 'bench-key', secret: 'bench-secret-0123456789' } as const;

/** The hotel API client configuration of the worker and of the direct-call baseline. */
export function benchHotelApiConfig(baseUrl: string): HotelApiConfig {
  return {
    baseUrl,
    key: BENCH_COMPANY.key,
    secret: BENCH_COMPANY.secret,
    // The production defaults (src/config/).
    timeouts: { bookingMs: 120_000, readMs: 15_000, searchMs: 15_000 },
    clockCorrection: true,
    maxConnections: 64,
  };
}

/** A simulator company: its API key and secret. */
export interface BenchCompany {
  readonly key: string;
  readonly secret: string;
}

/** A supplier account besides the default one: its id, its company, its cap and slots. */
export interface BenchAccount {
  readonly id: string;
  readonly company: BenchCompany;
  /** Fleet-wide calls per second (the account's task queue's activity rate); absent: none. */
  readonly maxCallsPerSecond?: number;
  /** Concurrent calls per worker; absent: the default account's. */
  readonly maxConcurrentCalls?: number;
}

/** The workers' `SUPPLIER_ACCOUNTS` for `accounts`, each at the simulator's `baseUrl`. */
export function supplierAccountsJson(accounts: readonly BenchAccount[], baseUrl: string): string {
  return JSON.stringify(
    accounts.map((a) => ({
      id: a.id,
      baseUrl,
      key: a.company.key,
      secret: a.company.secret,
      ...(a.maxCallsPerSecond !== undefined ? { maxCallsPerSecond: a.maxCallsPerSecond } : {}),
      ...(a.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: a.maxConcurrentCalls } : {}),
    })),
  );
}
