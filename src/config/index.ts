/** The one place that reads `process.env`: entry points call {@link loadConfig} once. */
import { DEV_CREDENTIALS, loadSupplierAccounts, missingAccountCredentials } from './accounts';
import { codecServerTarget, loadEncryptionConfig } from './codec';
import { EnvSchema, type Env } from './env-schema';
import { ConfigError } from './errors';
import { isLoopbackUrl } from './loopback';
import { loadOrderEvents } from '../order-events/config';
import { loadTemporalSecurity } from './temporal-security';
import { valueOrFile } from './value-or-file';

export { EnvSchema, type Env } from './env-schema';
export { ConfigError } from './errors';
export {
  DEV_CREDENTIALS,
  type AccountApi,
  type LoadAccountsOptions,
  type SupplierAccount,
  loadSupplierAccounts,
} from './accounts';
export * from './defaults';

/**
 * The whole configuration, one part per layer; each layer owns the type it takes
 * (`HotelApiConfig`, `TemporalSecurity`, …), matched by the compiler where it is handed down.
 */
export type Config = ReturnType<typeof loadConfig>;

const MISSING_KEY = 'HOTEL_API_KEY: required (or HOTEL_API_KEY_FILE)';
const MISSING_SECRET = 'HOTEL_API_SECRET: required (or HOTEL_API_SECRET_FILE)';

/**
 * Throws {@link ConfigError} when a config loaded without supplier credentials lacks them: the
 * default account's, or those of an account of `SUPPLIER_ACCOUNTS`.
 */
export function assertSupplierCredentials(config: Config): void {
  const problems = [
    ...(config.hotelApi.key ? [] : [MISSING_KEY]),
    ...(config.hotelApi.secret ? [] : [MISSING_SECRET]),
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

export interface LoadConfigOptions {
  /**
   * Whether missing supplier credentials are an error now. Tools that may only talk to Temporal
   * load without them and call {@link assertSupplierCredentials} before a supplier call.
   * @default true
   */
  readonly requireSupplierCredentials?: boolean;
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
  let key = valueOrFile('HOTEL_API_KEY', env.HOTEL_API_KEY, env.HOTEL_API_KEY_FILE, problems);
  let secret = valueOrFile(
    'HOTEL_API_SECRET',
    env.HOTEL_API_SECRET,
    env.HOTEL_API_SECRET_FILE,
    problems,
  );
  if (key === undefined && secret === undefined && isLoopbackUrl(env.HOTEL_API_BASE_URL)) {
    ({ key, secret } = DEV_CREDENTIALS);
  }
  if (options.requireSupplierCredentials === false) {
    key ??= '';
    secret ??= '';
  } else {
    if (!key && key !== null) problems.push(MISSING_KEY);
    if (!secret && secret !== null) problems.push(MISSING_SECRET);
  }
  const hotelApi = {
    baseUrl: env.HOTEL_API_BASE_URL,
    key: key ?? '',
    secret: secret ?? '',
    timeouts: {
      bookingMs: env.HOTEL_API_BOOKING_TIMEOUT_MS,
      readMs: env.HOTEL_API_READ_TIMEOUT_MS,
      searchMs: env.HOTEL_API_SEARCH_TIMEOUT_MS,
    },
    clockCorrection: env.HOTEL_API_CLOCK_CORRECTION,
    maxConnections: env.HOTEL_API_MAX_CONNECTIONS,
  };
  const suppliers = loadSupplierAccounts(env, hotelApi, problems, options);
  const security = loadTemporalSecurity(env, problems);
  const orderEvents = loadOrderEvents(env, problems);
  let encryption: ReturnType<typeof loadEncryptionConfig> | undefined;
  try {
    encryption = loadEncryptionConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0 || key === undefined || secret === undefined || !encryption) {
    throw new ConfigError(problems);
  }
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
      /** A prebuilt workflow bundle file, if any. */
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
