/** Options of {@link buildSimulator}, validated once (unknown keys are rejected). */
import { z } from 'zod';
import type { CompanyAccount } from './auth';
import type { Deviations } from './deviations';
import { DeviationsSchema } from './deviations';
import type {
  CompanyFaults,
  CompanyFaultSettings,
  ErrorRates,
  LatencyOption,
  RateLimitOption,
} from './faults';
import {
  CompanyFaultSettingsSchema,
  ErrorRatesSchema,
  LatencySchema,
  patchCompanyFaults,
  RateLimitSchema,
} from './faults';
import type { HostileRule } from './hostile';
import { HostileRuleSchema } from './hostile';
import type { ScenarioName } from './scenarios';
import { SCENARIO_NAMES } from './scenarios';

/** The company the simulator accepts when none is configured (also the CLI default). */
export const DEMO_COMPANY: CompanyAccount = {
  key: 'demo-key',
  secret: 'demo-secret-change-me',
  active: true,
};

export interface SimulatorOptions {
  /** Company accounts (key, secret, active). @default [DEMO_COMPANY] (`demo-key`, active) */
  readonly companies?: readonly CompanyAccount[];
  /** Latency added before each `/api/v1` request is handled. @default none */
  readonly latency?: LatencyOption;
  /** 503 probability per endpoint (`'*'` for all), decided before auth. @default none */
  readonly errorRate?: ErrorRates;
  /** Per-company rate limit; excess requests get 429 with `Retry-After`. @default none */
  readonly rateLimit?: RateLimitOption;
  /**
   * Faults of one company, by API key (a key of `companies`): `latency`, `errorRate` and
   * `rateLimit` replace the global ones for the requests signed with that key, and `hang: true`
   * leaves them unanswered, e.g. `{ 'eu-key': { hang: true } }`. Changed at runtime with
   * `setCompanyFaults` or `POST /__sim/company-faults`. @default none
   */
  readonly companyFaults?: CompanyFaults;
  /** Seed of every random choice (faults, latency, tokens). @default 1 */
  readonly seed?: number;
  /** Serve the `/__sim/*` inspection and control routes. @default false */
  readonly inspection?: boolean;
  /** The server clock, epoch ms (auth window, token expiry, `Date`, `created_at`). @default Date.now */
  readonly now?: () => number;
  /** Lifetime of a price-check token, ms. @default 1_800_000 (30 min) */
  readonly tokenTtlMs?: number;
  /** List one room per scenario in availability, besides the ordinary rooms. @default true */
  readonly scenarioRooms?: boolean;
  /**
   * Parameters of the scenario rooms listed in availability, by scenario (e.g.
   * `{ 'confirm-after-polls': 5 }` is "polls before confirm"). Option ids built with
   * `scenarioOptionId` carry their own. @default each scenario's default (see SCENARIOS)
   */
  readonly scenarioParams?: Partial<Record<ScenarioName, number>>;
  /** Largest accepted request body, bytes; larger gets 413. @default 1_048_576 (1 MiB) */
  readonly maxBodyBytes?: number;
  /** The first booking id issued. @default 100_001 */
  readonly firstBookingId?: number;
  /**
   * Called as each `/api/v1` request to a known endpoint arrives (before latency and faults),
   * in arrival order: for tests and the bench that need the order or time of supplier calls.
   */
  readonly onRequest?: (request: ArrivedRequest) => void;
  /**
   * Differences from the documented contract to play (deviations.ts), e.g.
   * `{ 'comma-arrays': true, 'clock-offset': 600 }`; a number is the deviation's parameter.
   * @default none
   */
  readonly deviations?: Deviations;
  /**
   * Hostile answers to play (hostile.ts), e.g. `[{ kind: 'truncated-json', endpoint: 'booking' }]`;
   * more are added at runtime with `POST /__sim/hostile`. @default none
   */
  readonly hostile?: readonly HostileRule[];
}

/** A request as {@link SimulatorOptions.onRequest} sees it. */
export interface ArrivedRequest {
  readonly endpoint: string;
  /** The raw query string (e.g. `option_id=…` of a price check). */
  readonly query: string;
  /** Arrival time, epoch ms (the real clock, not `now`). */
  readonly atMs: number;
}

const CompanySchema = z.strictObject({
  key: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^,=\s]+$/, 'no commas, equals signs or spaces'),
  secret: z.string().min(1).max(500),
  active: z.boolean(),
});

const OptionsSchema = z.strictObject({
  companies: z.array(CompanySchema).optional(),
  latency: LatencySchema.optional(),
  errorRate: ErrorRatesSchema.optional(),
  rateLimit: RateLimitSchema.optional(),
  companyFaults: z.record(z.string(), CompanyFaultSettingsSchema).optional(),
  seed: z.number().int().optional(),
  inspection: z.boolean().optional(),
  now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
  tokenTtlMs: z.number().int().positive().optional(),
  scenarioRooms: z.boolean().optional(),
  scenarioParams: z
    .partialRecord(
      z.enum(SCENARIO_NAMES),
      z.union([z.number().int().min(0).max(100_000_000), z.literal(Infinity)]),
    )
    // A price cannot drop by more than 90%: option ids with more are refused.
    .refine((p) => (p['price-down'] ?? 0) <= 90, 'price-down must be at most 90 (percent)')
    .optional(),
  maxBodyBytes: z.number().int().positive().optional(),
  firstBookingId: z.number().int().positive().optional(),
  onRequest: z
    .custom<(request: ArrivedRequest) => void>((v) => typeof v === 'function', 'must be a function')
    .optional(),
  deviations: DeviationsSchema.optional(),
  hostile: z.array(HostileRuleSchema).optional(),
});

export { CompanySchema };

/** Options with every default filled in. */
export interface ResolvedOptions {
  readonly companies: readonly CompanyAccount[];
  readonly latency: LatencyOption | undefined;
  readonly errorRate: ErrorRates | undefined;
  readonly rateLimit: RateLimitOption | undefined;
  /** By API key, without empty entries and `hang: false`. */
  readonly companyFaults: ReadonlyMap<string, CompanyFaultSettings>;
  readonly seed: number;
  readonly inspection: boolean;
  readonly now: (() => number) | undefined;
  readonly tokenTtlMs: number;
  readonly scenarioRooms: boolean;
  readonly scenarioParams: Partial<Record<ScenarioName, number>>;
  readonly maxBodyBytes: number;
  readonly firstBookingId: number;
  readonly onRequest: ((request: ArrivedRequest) => void) | undefined;
  readonly deviations: Deviations;
  readonly hostile: readonly HostileRule[];
}

/** Validates options and fills defaults; throws a `RangeError` naming the bad fields. */
export function resolveOptions(options: SimulatorOptions): ResolvedOptions {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new RangeError(`invalid simulator options: ${z.prettifyError(parsed.error)}`);
  }
  const o = parsed.data;
  const companies = o.companies ?? [DEMO_COMPANY];
  const companyFaults = new Map<string, CompanyFaultSettings>();
  for (const [key, settings] of Object.entries(o.companyFaults ?? {})) {
    if (!companies.some((c) => c.key === key)) {
      throw new RangeError(`invalid simulator options: companyFaults names no company: ${key}`);
    }
    const normalized = patchCompanyFaults({}, settings);
    if (Object.keys(normalized).length > 0) companyFaults.set(key, normalized);
  }
  return {
    companies,
    latency: o.latency,
    errorRate: o.errorRate,
    rateLimit: o.rateLimit,
    companyFaults,
    seed: o.seed ?? 1,
    inspection: o.inspection ?? false,
    now: o.now,
    tokenTtlMs: o.tokenTtlMs ?? 30 * 60_000, // 30 min
    scenarioRooms: o.scenarioRooms ?? true,
    scenarioParams: o.scenarioParams ?? {},
    maxBodyBytes: o.maxBodyBytes ?? 1_048_576, // 1 MiB
    firstBookingId: o.firstBookingId ?? 100_001,
    onRequest: o.onRequest,
    deviations: o.deviations ?? {},
    hostile: o.hostile ?? [],
  };
}
