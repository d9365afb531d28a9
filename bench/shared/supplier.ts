/** The supplier the bench's simulator plays, and how the bench's clients of it are configured. */
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
