/**
 * Fault knobs: added latency, 503 error rates per endpoint, a per-company rate limit. Set at
 * build time and changeable at runtime (`sim.setFaults`, `POST /__sim/faults`). One company can
 * have knobs of its own, which override these for its requests only, and a `hang`
 * (`companyFaults` option, `sim.setCompanyFaults`, `POST /__sim/company-faults`).
 */
import { z } from 'zod';
import { ENDPOINTS } from './endpoints';
import type { EndpointName } from './endpoints';
import type { Prng } from './prng';

/**
 * Latency added before each `/api/v1` request is handled: a fixed delay, a uniform range, or a
 * normal distribution (clamped at 0).
 */
export type LatencyOption =
  | { readonly fixedMs: number }
  | { readonly minMs: number; readonly maxMs: number }
  | { readonly meanMs: number; readonly stddevMs: number };

/**
 * Probability (0..1) that a request to an endpoint is answered 503 before anything else
 * happens; `'*'` applies to every endpoint without its own entry.
 */
export type ErrorRates = Partial<Record<EndpointName | '*', number>>;

/** A per-company token bucket: `perSecond` requests a second, bursts up to `burst`. */
export interface RateLimitOption {
  readonly perSecond: number;
  /** @default perSecond */
  readonly burst?: number;
}

/** The fault knobs in force. */
export interface FaultSettings {
  readonly latency?: LatencyOption;
  readonly errorRate?: ErrorRates;
  readonly rateLimit?: RateLimitOption;
}

const ms = z.number().finite().min(0).max(600_000);

export const LatencySchema = z.union([
  z.strictObject({ fixedMs: ms }),
  z
    .strictObject({ minMs: ms, maxMs: ms })
    .refine((l) => l.maxMs >= l.minMs, 'maxMs must not be below minMs'),
  z.strictObject({ meanMs: ms, stddevMs: ms }),
]);

export const ErrorRatesSchema = z.partialRecord(
  z.enum([...ENDPOINTS, '*']),
  z.number().min(0).max(1),
);

export const RateLimitSchema = z.strictObject({
  perSecond: z.number().positive().max(1_000_000),
  burst: z.number().min(1).max(1_000_000).optional(),
});

/**
 * A change of fault settings: each key present replaces the current value, `null` clears it,
 * absent keys stay as they are.
 */
export const FaultPatchSchema = z.strictObject({
  latency: LatencySchema.nullable().optional(),
  errorRate: ErrorRatesSchema.nullable().optional(),
  rateLimit: RateLimitSchema.nullable().optional(),
});
export type FaultPatch = z.infer<typeof FaultPatchSchema>;

/** Applies a patch to settings. */
export function patchFaults(current: FaultSettings, patch: FaultPatch): FaultSettings {
  const next: { -readonly [K in keyof FaultSettings]: FaultSettings[K] } = { ...current };
  for (const key of ['latency', 'errorRate', 'rateLimit'] as const) {
    const value = patch[key];
    if (value === null) delete next[key];
    else if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  }
  return next;
}

/**
 * The fault knobs of one company: each one set replaces the global knob for the requests signed
 * with the company's key (the others still apply); `hang` exists only here.
 */
export interface CompanyFaultSettings extends FaultSettings {
  /**
   * Accept the company's requests and never answer them: each waits until the fault is cleared
   * (or reset away), when its connection is destroyed unanswered, or until the simulator closes.
   */
  readonly hang?: boolean;
}

/** Faults per company, by API key. */
export type CompanyFaults = Readonly<Record<string, CompanyFaultSettings>>;

export const CompanyFaultSettingsSchema = z.strictObject({
  latency: LatencySchema.optional(),
  errorRate: ErrorRatesSchema.optional(),
  rateLimit: RateLimitSchema.optional(),
  hang: z.boolean().optional(),
});

/** A change of one company's knobs: as {@link FaultPatchSchema}, plus `hang` (`false` clears it). */
export const CompanyFaultPatchSchema = FaultPatchSchema.extend({
  hang: z.boolean().nullable().optional(),
});
export type CompanyFaultPatch = z.infer<typeof CompanyFaultPatchSchema>;

/** Applies a patch to a company's settings (`hang: false` is the same as `hang: null`). */
export function patchCompanyFaults(
  current: CompanyFaultSettings,
  patch: CompanyFaultPatch,
): CompanyFaultSettings {
  const { hang, ...rest } = patch;
  const { hang: was, ...knobs } = current;
  const next: CompanyFaultSettings = patchFaults(knobs, rest);
  const hangs = hang === undefined ? was === true : hang === true;
  return hangs ? { ...next, hang: true } : next;
}

/** The knobs in force for a company's request: its own where set, else the global ones. */
export function faultsFor(
  global: FaultSettings,
  company: CompanyFaultSettings | undefined,
): CompanyFaultSettings {
  if (company === undefined) return global;
  return { ...global, ...company };
}

/** One latency draw in milliseconds (0 when no latency is set). */
export function sampleLatency(latency: LatencyOption | undefined, prng: Prng): number {
  if (latency === undefined) return 0;
  if ('fixedMs' in latency) return latency.fixedMs;
  if ('minMs' in latency) return latency.minMs + prng.next() * (latency.maxMs - latency.minMs);
  return Math.max(0, prng.normal(latency.meanMs, latency.stddevMs));
}

/** The 503 probability of an endpoint. */
export function errorRateFor(rates: ErrorRates | undefined, endpoint: EndpointName): number {
  if (rates === undefined) return 0;
  return rates[endpoint] ?? rates['*'] ?? 0;
}
