/** The one place that reads `process.env`: entry points call {@link loadConfig} once. */
import { completeCredentials, type LoadAccountsOptions } from './account-fields';
import { loadSupplierAccounts, missingAccountCredentials } from './accounts';
import { codecServerTarget, loadEncryptionConfig } from './codec';
import { EnvSchema, type Env } from './env-schema';
import { collectProblems, ConfigError } from './errors';
import { loadOrderEvents } from '../order-events/config';
import { loadTemporalSecurity } from './temporal-security';
import { valueOrFile } from './value-or-file';

export { EnvSchema, type Env } from './env-schema';
export { collectProblems, ConfigError } from './errors';
export { DEV_CREDENTIALS } from './account-fields';
export type { SupplierAccount } from './accounts';
export * from './defaults';

/**
 * The whole configuration, one part per layer; each layer owns the type it takes
 * (`HotelApiConfig`, `TemporalSecurity`, …), matched by the compiler where it is handed down.
 */
export type Config = ReturnType<typeof loadConfig>;

/** Whether {@link loadConfig} requires supplier credentials now. */
export type LoadConfigOptions = LoadAccountsOptions;

const MISSING = {
  key: 'HOTEL_API_KEY: required (or HOTEL_API_KEY_FILE)',
  secret: 'HOTEL_API_SECRET: required (or HOTEL_API_SECRET_FILE)',
} as const;

/**
 * Throws {@link ConfigError} when a config loaded without supplier credentials lacks them: the
 * default account's, or those of an account of `SUPPLIER_ACCOUNTS`.
 */
export function assertSupplierCredentials(config: Config): void {
  const problems = [
    ...(['key', 'secret'] as const).filter((k) => !config.hotelApi[k]).map((k) => MISSING[k]),
    ...missingAccountCredentials(config.suppliers),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Parses the environment variables only, for callers that need the raw values. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return parsed.data;
}

/** The default account's client (`HOTEL_API_*`), its credentials completed as any account's. */
function defaultHotelApi(env: Env, options: LoadConfigOptions, problems: string[]) {
  const read = (name: 'HOTEL_API_KEY' | 'HOTEL_API_SECRET') =>
    valueOrFile(name, env[name], env[`${name}_FILE`], problems);
  const given = { key: read('HOTEL_API_KEY'), secret: read('HOTEL_API_SECRET') };
  const keys = completeCredentials(given, env.HOTEL_API_BASE_URL, options, MISSING, problems);
  return {
    baseUrl: env.HOTEL_API_BASE_URL,
    ...(keys ?? { key: '', secret: '' }),
    timeouts: {
      bookingMs: env.HOTEL_API_BOOKING_TIMEOUT_MS,
      readMs: env.HOTEL_API_READ_TIMEOUT_MS,
      searchMs: env.HOTEL_API_SEARCH_TIMEOUT_MS,
    },
    clockCorrection: env.HOTEL_API_CLOCK_CORRECTION,
    maxConnections: env.HOTEL_API_MAX_CONNECTIONS,
  };
}

/**
 * Parses and validates the whole configuration. Credentials default to the simulator's demo
 * company only when the base URL is a loopback address; against a real supplier they are required.
 */
export function loadConfig(
  source: NodeJS.ProcessEnv = process.env,
  options: LoadConfigOptions = {},
) {
  const env = parseEnv(source);
  const problems: string[] = [];
  const hotelApi = defaultHotelApi(env, options, problems);
  const suppliers = loadSupplierAccounts(env, hotelApi, problems, options);
  const security = loadTemporalSecurity(env, problems);
  const orderEvents = loadOrderEvents(env, problems);
  const encryption = collectProblems(() => loadEncryptionConfig(env), problems);
  if (problems.length > 0 || !encryption) throw new ConfigError(problems);
  return {
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      tls: security.tls,
      apiKey: security.apiKey,
    },
    worker: {
      metricsPort: env.METRICS_PORT,
      healthPort: env.HEALTH_PORT,
      maxSupplierCallsPerSecond: env.SUPPLIER_MAX_CALLS_PER_SECOND,
      /** `SUPPLIER_LOCAL_CALLS_PER_SECOND`; unset, derived from the cap (build-worker.ts). */
      localSupplierCallsPerSecond: env.SUPPLIER_LOCAL_CALLS_PER_SECOND,
      maxConcurrentSupplierCalls: env.SUPPLIER_MAX_CONCURRENT_CALLS,
      maxCachedWorkflows: env.MAX_CACHED_WORKFLOWS,
      /** `SHUTDOWN_GRACE_MS`; unset, the worker derives it from the booking timeout. */
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      /** The SDK's Prometheus exporter port (loopback), 0 = off, `'free'` = any free one. */
      temporalMetricsPort: env.TEMPORAL_METRICS_PORT ?? ('free' as const),
      /** Minimum age of the visibility booking counts before a scrape recounts, ms. */
      visibilityRefreshMs: env.METRICS_VISIBILITY_REFRESH_MS,
      workflowBundlePath: env.WORKFLOW_BUNDLE_PATH,
    },
    catalogueDbPath: env.CATALOGUE_DB_PATH,
    /** The default account's supplier client (`HOTEL_API_*`): `suppliers[0].hotelApi`. */
    hotelApi,
    /** Every supplier account, the default one (`HOTEL_API_*`) first (src/config/accounts.ts). */
    suppliers,
    /** Payload encryption keys (the first encrypts, all decrypt). */
    encryption,
    orderIdField: env.BOOKING_ORDER_ID_FIELD,
    /** Where order events go; undefined: none are sent. */
    orderEvents,
    /** The codec server as a client reaches it (CODEC_SERVER_URL, CODEC_SERVER_TOKEN). */
    codecServer: codecServerTarget(env),
    logLevel: env.LOG_LEVEL,
  };
}
