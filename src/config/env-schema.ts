/**
 * The environment variables the product reads: type, default and meaning of each, from which
 * docs/configuration.md's table is generated (`npm run docs`; test/docs.test.ts fails when stale).
 */
import { z } from 'zod';
import {
  DEFAULT_MAX_CACHED_WORKFLOWS,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_NAMESPACE,
  DEFAULT_ORDER_ID_FIELD,
  DEFAULT_TASK_QUEUE,
} from './defaults';

/** A variable: its schema, what it means, and its default in words where it is not a plain value. */
interface Variable<T extends z.ZodType> {
  readonly schema: T;
  readonly meaning: string;
  readonly defaultText?: string;
}
const v = <T extends z.ZodType>(schema: T, meaning: string, defaultText?: string): Variable<T> => ({
  schema,
  meaning,
  ...(defaultText !== undefined ? { defaultText } : {}),
});

const positiveInt = z.coerce.number().int().positive();
/** A non-empty string, `fallback` when unset. */
const nonEmpty = (fallback: string) => z.string().min(1).default(fallback);
const port = z.coerce.number().int().min(0).max(65535);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
/** `true`, `false`, `1` or `0`; unset: true. */
const flag = z
  .enum(['true', 'false', '1', '0'])
  .default('true')
  .transform((v) => v === 'true' || v === '1');
/** An optional string variable (empty counts as unset). */
const text = (meaning: string, defaultText?: string) => v(optionalString, meaning, defaultText);

const VARIABLES = {
  TEMPORAL_ADDRESS: v(nonEmpty('localhost:7233'), 'Temporal frontend, `host:port`'),
  TEMPORAL_NAMESPACE: v(nonEmpty(DEFAULT_NAMESPACE), 'Temporal namespace'),
  TEMPORAL_TASK_QUEUE: v(
    nonEmpty(DEFAULT_TASK_QUEUE),
    'the task queue workers poll and clients start on',
  ),
  TEMPORAL_TLS: text(
    '`true`: TLS with the system CAs and no client certificate; `false`: plaintext even with an API key',
    'on when any TLS setting or an API key is set',
  ),
  TEMPORAL_TLS_CERT: text(
    'mTLS client certificate: a PEM file path (as the Temporal CLI reads it) or the PEM text',
  ),
  TEMPORAL_TLS_CERT_FILE: text('path of the client certificate (instead of `TEMPORAL_TLS_CERT`)'),
  TEMPORAL_TLS_KEY: text(
    "the client certificate's private key (PEM, unencrypted; path or text); required with the certificate and checked to match it",
  ),
  TEMPORAL_TLS_KEY_FILE: text('path of the private key (instead of `TEMPORAL_TLS_KEY`)'),
  TEMPORAL_TLS_CA: text(
    "the CA that issued the server's certificate (path or PEM text)",
    'system CAs',
  ),
  TEMPORAL_TLS_CA_FILE: text('path of the CA (instead of `TEMPORAL_TLS_CA`)'),
  TEMPORAL_TLS_SERVER_NAME: text(
    "the name to verify in the server's certificate (SNI)",
    "the address's host",
  ),
  TEMPORAL_API_KEY: text(
    'Temporal Cloud API key (turns TLS on; not together with a client certificate)',
  ),
  TEMPORAL_API_KEY_FILE: text('path of a file holding the API key'),

  HOTEL_API_BASE_URL: v(
    z.url().default('http://127.0.0.1:8080'),
    "the supplier's base URL (production or staging; `/api/v1` is appended)",
  ),
  HOTEL_API_KEY: text(
    'the supplier API key',
    "the simulator's `demo-key`, on a loopback base URL only",
  ),
  HOTEL_API_KEY_FILE: text('path of a file holding the API key'),
  HOTEL_API_SECRET: text(
    'the supplier API secret (never logged)',
    "the simulator's demo secret, on a loopback base URL only",
  ),
  HOTEL_API_SECRET_FILE: text('path of a file holding the API secret'),
  HOTEL_API_BOOKING_TIMEOUT_MS: v(
    positiveInt.default(120_000),
    "`POST /booking` timeout, ms (bed banks advise long ones); at most the booking activity's 15 min backstop less 15 s",
  ),
  HOTEL_API_READ_TIMEOUT_MS: v(
    positiveInt.default(15_000),
    'timeout of every other call, ms; at most 18000 (reads run in 20 s activities)',
  ),
  HOTEL_API_SEARCH_TIMEOUT_MS: v(
    positiveInt.default(30_000),
    'timeout of `GET /properties/availability`, ms',
  ),
  HOTEL_API_CLOCK_CORRECTION: v(
    flag,
    "sign with the supplier's clock (its `Date` header) when ours drifts",
  ),
  HOTEL_API_MAX_CONNECTIONS: v(positiveInt.default(64), "the HTTP connection pool's size"),

  BOOKING_ORDER_ID_FIELD: v(
    z
      .string()
      .regex(/^custom_field_(10|[1-9])$/, 'must be one of custom_field_1..custom_field_10')
      .default(DEFAULT_ORDER_ID_FIELD),
    "the custom field carrying the order id to the supplier (a client's choice travels in the input; this is the worker's for inputs without one)",
  ),

  PAYLOAD_ENCRYPTION_KEYS: text(
    '`keyId:base64(32 bytes)`, comma-separated; the first encrypts, all decrypt (docs/payload-encryption.md)',
    'a public development key, only with a local Temporal (loopback `TEMPORAL_ADDRESS`, no API key) or `NODE_ENV=development` or `test` (with a warning); refused otherwise',
  ),
  PAYLOAD_ENCRYPTION_KEYS_FILE: text(
    'path of a file holding the keys, one per line or comma-separated',
  ),
  CODEC_SERVER_TOKEN: text(
    'bearer token the codec server requires (at least 16 characters in production)',
    '`dev-codec-token` (refused when `NODE_ENV=production`)',
  ),
  CODEC_SERVER_PORT: v(port.default(8888), "the codec server's port"),
  CODEC_SERVER_URL: v(
    optionalString.pipe(
      z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
    ),
    "the codec server's base URL as the Temporal UI reaches it, for `hotel-booking doctor namespace`",
    '`http://127.0.0.1:<CODEC_SERVER_PORT>`',
  ),
  CODEC_CORS_ORIGIN: v(
    z.string().default('http://localhost:8233'),
    'Temporal UI origins allowed to call the codec server (CORS), comma-separated',
  ),
  NODE_ENV: text(
    '`production` refuses the development keys and tokens; `development` or `test` allows the development payload key with a Temporal that is not local, with a warning',
  ),

  ORDER_EVENTS_URL: text(
    "the order system's endpoint for order events (Standard Webhooks, docs/order-events.md)",
    'none: no events are sent',
  ),
  ORDER_EVENTS_SECRET: text(
    'the `whsec_…` secret events are signed with (required with `ORDER_EVENTS_URL`; never logged)',
  ),
  ORDER_EVENTS_SECRET_FILE: text(
    'path of a file holding the secret (instead of `ORDER_EVENTS_SECRET`)',
  ),

  METRICS_PORT: v(port.default(9464), 'Prometheus `/metrics` on `0.0.0.0:<port>`; 0 = off'),
  HEALTH_PORT: v(port.default(8081), 'liveness `/healthz` and readiness `/readyz`; 0 = off'),
  SUPPLIER_MAX_CALLS_PER_SECOND: v(
    z.coerce.number().min(0).default(0),
    "fleet-wide cap on supplier calls per second (the task queue's activity rate); 0 = none",
  ),
  SUPPLIER_LOCAL_CALLS_PER_SECOND: v(
    z.coerce.number().min(0).optional(),
    "per-worker budget of supplier reads made as local activities (a new booking's price check, the guard's first read), outside the task queue's cap: the fleet's calls per second are at most `SUPPLIER_MAX_CALLS_PER_SECOND` + workers × this; a read over budget is queued under the cap",
    'unlimited without `SUPPLIER_MAX_CALLS_PER_SECOND`, 0 with it',
  ),
  SUPPLIER_MAX_CONCURRENT_CALLS: v(
    positiveInt.default(DEFAULT_MAX_CONCURRENT_CALLS),
    'per-worker cap on concurrent supplier calls',
  ),
  SUPPLIER_ACCOUNTS: text(
    'supplier accounts beyond the default one (which the `HOTEL_API_*` variables configure): a JSON array of `{"id", "baseUrl", "key" or "keyFile", "secret" or "secretFile", …}` objects (docs/configuration.md#several-supplier-accounts)',
    'none: the default account only',
  ),
  SUPPLIER_ACCOUNTS_FILE: text('path of a file holding that JSON (instead of `SUPPLIER_ACCOUNTS`)'),
  SUPPLIER_DEFAULT_ENABLED: v(
    flag,
    '`false` (or `0`) disables the default account: it refuses new orders, its running orders go on',
  ),
  MAX_CACHED_WORKFLOWS: v(
    positiveInt.default(DEFAULT_MAX_CACHED_WORKFLOWS),
    "workflows a worker keeps in memory between their tasks (the SDK's maxCachedWorkflows): a poll of a booking still cached does not replay its history (docs/capacity.md)",
  ),
  SHUTDOWN_GRACE_MS: v(
    positiveInt.optional(),
    'how long running activities may finish after SIGTERM, ms; shorter than the default: a warning at start',
    'the longest booking timeout of the supplier accounts + 15 s (`135000`)',
  ),
  TEMPORAL_METRICS_PORT: v(
    port.optional(),
    "the SDK's own Prometheus exporter on 127.0.0.1, served through `METRICS_PORT`'s `/metrics`; 0 = off",
    'a free port (logged)',
  ),
  METRICS_VISIBILITY_REFRESH_MS: v(
    z.coerce.number().int().min(0).default(15_000),
    'the booking gauges (visibility counts) are recounted at most this often, ms; 0 = every scrape',
  ),
  WORKFLOW_BUNDLE_PATH: text(
    'a prebuilt workflow bundle (the image builds one)',
    'none: bundled at start',
  ),
  CATALOGUE_DB_PATH: v(
    nonEmpty('.data/catalogue.db'),
    'the embedded content catalogue (SQLite file)',
  ),

  LOG_LEVEL: v(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  ),
};

type Schemas = { [K in keyof typeof VARIABLES]: (typeof VARIABLES)[K]['schema'] };
export const EnvSchema = z.object(
  Object.fromEntries(Object.entries(VARIABLES).map(([k, x]) => [k, x.schema])) as Schemas,
);

export type Env = z.infer<typeof EnvSchema>;

/** Every variable with its documentation and default, in schema order. */
export function documentedVariables(): { name: string; meaning: string; defaultText: string }[] {
  const defaults: Record<string, unknown> = EnvSchema.parse({});
  return Object.entries(VARIABLES).map(([name, x]: [string, Variable<z.ZodType>]) => {
    const plain = defaults[name] === undefined ? '' : `\`${String(defaults[name])}\``;
    return { name, meaning: x.meaning, defaultText: x.defaultText ?? plain };
  });
}
