/**
 * The one place that reads `process.env`. Every entry point calls {@link loadConfig} once and
 * passes the parts down; nothing else reads the environment.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadTemporalSecurity, type TemporalSecurity } from './client/connection-options';
import { loadEncryptionConfig, type EncryptionConfig } from './codec/config';
import { DEFAULT_TASK_QUEUE } from './shared/task-queue';
import { clientTimeoutProblems, shutdownGraceMsFor } from './workflows/activity-options';

const durationMs = z.coerce.number().int().positive();
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** The environment variables this project reads, with their defaults. */
export const EnvSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  /**
   * Secured connections (src/client/connection-options.ts): mTLS client certificate and key,
   * the CA that issued the server's certificate, the server name to verify, or a Temporal Cloud API
   * key. `TEMPORAL_TLS_CERT`/`_KEY`/`_CA` are PEM file paths (as the Temporal CLI reads them) or PEM
   * text; the `_FILE` forms are paths. `TEMPORAL_TLS=true` turns TLS on with the system CAs.
   */
  TEMPORAL_TLS: optionalString,
  TEMPORAL_TLS_CERT: optionalString,
  TEMPORAL_TLS_CERT_FILE: optionalString,
  TEMPORAL_TLS_KEY: optionalString,
  TEMPORAL_TLS_KEY_FILE: optionalString,
  TEMPORAL_TLS_CA: optionalString,
  TEMPORAL_TLS_CA_FILE: optionalString,
  TEMPORAL_TLS_SERVER_NAME: optionalString,
  TEMPORAL_API_KEY: optionalString,
  TEMPORAL_API_KEY_FILE: optionalString,

  HOTEL_API_BASE_URL: z.url().default('http://127.0.0.1:8080'),
  HOTEL_API_KEY: optionalString,
  HOTEL_API_KEY_FILE: optionalString,
  HOTEL_API_SECRET: optionalString,
  HOTEL_API_SECRET_FILE: optionalString,
  /** Timeout of `POST /booking`, ms. Bed banks advise long booking timeouts. */
  HOTEL_API_BOOKING_TIMEOUT_MS: durationMs.default(120_000),
  /** Timeout of every other (read) call, ms. */
  HOTEL_API_READ_TIMEOUT_MS: durationMs.default(15_000),
  /** Timeout of `GET /properties/availability`, ms (searches are slower than reads). */
  HOTEL_API_SEARCH_TIMEOUT_MS: durationMs.default(30_000),
  /** Sign with the supplier's clock (from its `Date` header) when ours drifts. */
  HOTEL_API_CLOCK_CORRECTION: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  HOTEL_API_MAX_CONNECTIONS: z.coerce.number().int().positive().default(64),

  /** The custom field that carries the order id to the supplier. */
  BOOKING_ORDER_ID_FIELD: z
    .string()
    .regex(/^custom_field_(10|[1-9])$/, 'must be one of custom_field_1..custom_field_10')
    .default('custom_field_10'),

  /**
   * Payload encryption keys, `keyId:base64(32 bytes)` separated by commas. The first encrypts; all
   * decrypt, so retired keys stay readable while listed. Unset: a fixed development key (refused
   * when NODE_ENV=production).
   */
  PAYLOAD_ENCRYPTION_KEYS: optionalString,
  PAYLOAD_ENCRYPTION_KEYS_FILE: optionalString,
  /** Bearer token the codec server requires. Unset: a development token (refused in production). */
  CODEC_SERVER_TOKEN: optionalString,
  CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8888),
  /** The Temporal UI origin allowed to call the codec server (CORS). */
  CODEC_CORS_ORIGIN: z.string().default('http://localhost:8233'),
  NODE_ENV: optionalString,

  /** Prometheus metrics on `0.0.0.0:<port>/metrics`; 0 turns them off. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Liveness `/healthz` and readiness `/readyz`; 0 turns them off. */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  /** Fleet-wide cap on supplier calls per second (the task queue's activity rate); 0 = none. */
  SUPPLIER_MAX_CALLS_PER_SECOND: z.coerce.number().min(0).default(0),
  /** Per-worker cap on concurrent supplier calls (concurrent activities). */
  SUPPLIER_MAX_CONCURRENT_CALLS: z.coerce.number().int().positive().default(100),
  /**
   * How long running activities may finish after SIGTERM, ms. Unset: derived from the booking
   * timeout (HOTEL_API_BOOKING_TIMEOUT_MS + 15 s), so a deploy lets every booking call finish.
   */
  SHUTDOWN_GRACE_MS: durationMs.optional(),
  /**
   * The Temporal SDK's own Prometheus exporter, bound on 127.0.0.1:<port> and served through
   * METRICS_PORT's `/metrics` (one scrape target); 0 turns the SDK's metrics off. Unset: a free
   * loopback port, logged at start (nothing scrapes it directly, so several workers on one host
   * need no setting).
   */
  TEMPORAL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Booking gauges (visibility counts) are recounted at most this often, ms; 0 = every scrape. */
  METRICS_VISIBILITY_REFRESH_MS: z.coerce.number().int().min(0).default(15_000),
  /** A prebuilt workflow bundle (the image builds one); unset or missing: bundled at start. */
  WORKFLOW_BUNDLE_PATH: optionalString,
  /** The embedded content catalogue (SQLite file). */
  CATALOGUE_DB_PATH: z.string().min(1).default('.data/catalogue.db'),

  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.infer<typeof EnvSchema>;

export interface HotelApiConfig {
  readonly baseUrl: string;
  readonly key: string;
  readonly secret: string;
  readonly timeouts: {
    readonly bookingMs: number;
    readonly readMs: number;
    readonly searchMs: number;
  };
  readonly clockCorrection: boolean;
  readonly maxConnections: number;
}

export interface TemporalConfig extends TemporalSecurity {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
}

export interface WorkerConfig {
  readonly metricsPort: number;
  readonly healthPort: number;
  readonly maxSupplierCallsPerSecond: number;
  readonly maxConcurrentSupplierCalls: number;
  /** `SHUTDOWN_GRACE_MS`, else derived from the booking timeout (`shutdownGraceMsFor`). */
  readonly shutdownGraceMs: number;
  /** The SDK's Prometheus exporter port (loopback), 0 = off, `'free'` = any free one. */
  readonly temporalMetricsPort: number | 'free';
  /** Minimum age of the visibility booking counts before a scrape recounts, ms. */
  readonly visibilityRefreshMs: number;
  /** A prebuilt workflow bundle file, if any. */
  readonly workflowBundlePath: string | undefined;
}

export interface Config {
  readonly temporal: TemporalConfig;
  readonly worker: WorkerConfig;
  readonly catalogueDbPath: string;
  readonly hotelApi: HotelApiConfig;
  /** Payload encryption keys (the first encrypts, all decrypt). */
  readonly encryption: EncryptionConfig;
  readonly orderIdField: string;
  readonly logLevel: Env['LOG_LEVEL'];
}

/** A configuration problem, naming every bad or missing variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Simulator credentials used when none are configured: only valid against the local simulator. */
export const DEV_CREDENTIALS = { key: 'demo-key', secret: 'demo-secret-change-me' } as const;

function readSecret(
  env: Env,
  name: 'HOTEL_API_KEY' | 'HOTEL_API_SECRET',
  problems: string[],
): string | undefined {
  const file = env[`${name}_FILE`];
  if (file !== undefined) {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      problems.push(
        `${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return undefined;
    }
  }
  return env[name];
}

const MISSING_KEY = 'HOTEL_API_KEY: required (or HOTEL_API_KEY_FILE)';
const MISSING_SECRET = 'HOTEL_API_SECRET: required (or HOTEL_API_SECRET_FILE)';

/** Throws {@link ConfigError} when a config loaded without supplier credentials lacks them. */
export function assertSupplierCredentials(config: Config): void {
  const problems = [
    ...(config.hotelApi.key ? [] : [MISSING_KEY]),
    ...(config.hotelApi.secret ? [] : [MISSING_SECRET]),
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

/**
 * Parses and validates the whole configuration. Credentials default to the simulator's demo
 * company only when the base URL is a loopback address; against a real supplier they are required.
 */
export interface LoadConfigOptions {
  /**
   * Whether missing supplier credentials are an error now. Tools that may only talk to Temporal
   * (the CLI's status, list, approve …) load without them and call
   * {@link assertSupplierCredentials} before a supplier call. @default true
   */
  readonly requireSupplierCredentials?: boolean;
}

export function loadConfig(
  source: NodeJS.ProcessEnv = process.env,
  options: LoadConfigOptions = {},
): Config {
  const env = parseEnv(source);
  const problems: string[] = [];
  let key = readSecret(env, 'HOTEL_API_KEY', problems);
  let secret = readSecret(env, 'HOTEL_API_SECRET', problems);
  const loopback = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/.test(
    env.HOTEL_API_BASE_URL,
  );
  if (key === undefined && secret === undefined && loopback) {
    ({ key, secret } = DEV_CREDENTIALS);
  }
  if (options.requireSupplierCredentials === false) {
    key ??= '';
    secret ??= '';
  } else {
    if (!key) problems.push(MISSING_KEY);
    if (!secret) problems.push(MISSING_SECRET);
  }
  problems.push(
    ...clientTimeoutProblems({
      bookingMs: env.HOTEL_API_BOOKING_TIMEOUT_MS,
      readMs: env.HOTEL_API_READ_TIMEOUT_MS,
    }),
  );
  const security = loadTemporalSecurity(env, problems);
  let encryption: EncryptionConfig | undefined;
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
      maxConcurrentSupplierCalls: env.SUPPLIER_MAX_CONCURRENT_CALLS,
      shutdownGraceMs:
        env.SHUTDOWN_GRACE_MS ?? shutdownGraceMsFor(env.HOTEL_API_BOOKING_TIMEOUT_MS),
      temporalMetricsPort: env.TEMPORAL_METRICS_PORT ?? 'free',
      visibilityRefreshMs: env.METRICS_VISIBILITY_REFRESH_MS,
      workflowBundlePath: env.WORKFLOW_BUNDLE_PATH,
    },
    catalogueDbPath: env.CATALOGUE_DB_PATH,
    hotelApi: {
      baseUrl: env.HOTEL_API_BASE_URL,
      key,
      secret,
      timeouts: {
        bookingMs: env.HOTEL_API_BOOKING_TIMEOUT_MS,
        readMs: env.HOTEL_API_READ_TIMEOUT_MS,
        searchMs: env.HOTEL_API_SEARCH_TIMEOUT_MS,
      },
      clockCorrection: env.HOTEL_API_CLOCK_CORRECTION,
      maxConnections: env.HOTEL_API_MAX_CONNECTIONS,
    },
    encryption,
    orderIdField: env.BOOKING_ORDER_ID_FIELD,
    logLevel: env.LOG_LEVEL,
  };
}
