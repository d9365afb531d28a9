/**
 * Structured JSON logs (pino) for the worker, with the Temporal runtime's own logs (SDK, workflow
 * and activity context loggers, and the native core when forwarded) written through the same
 * logger, so every line is one JSON object and the SDK's metadata (`workflowId`, `runId`,
 * `activityId`, `activityType`, `taskQueue`, `sdkComponent`, …) become top-level fields.
 *
 * Secrets and personal data are kept out in two layers:
 * 1. pino `redact` paths censor the sensitive keys ({@link SENSITIVE_KEYS}) at the top level and
 *    two levels down, whatever their value (a whole `rooms` array, a `contact` object).
 * 2. A final scrub of every serialized line ({@link createScrubber}) replaces the configured secret
 *    strings wherever they appear (a message, a stack trace) and the string or number value of a
 *    sensitive key at any depth.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { DefaultLogger, type LogEntry, type LogLevel } from '@temporalio/worker';
import type { Env } from '../config';

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * Keys whose values are never logged: credentials, and the guest's personal data in both the
 * workflow contract's spelling (`firstName`, `contact`) and the supplier API's (`lead_first_name`,
 * `phone_number`). Matched case-insensitively by the final scrub.
 */
export const SENSITIVE_KEYS: readonly string[] = [
  // credentials
  'authorization',
  'cookie',
  'secret',
  'apiSecret',
  'password',
  'token',
  'key',
  'apiKey',
  'signature',
  'HOTEL_API_SECRET',
  'HOTEL_API_KEY',
  'PAYLOAD_ENCRYPTION_KEYS',
  'CODEC_SERVER_TOKEN',
  // guests and contacts
  'firstName',
  'lastName',
  'first_name',
  'last_name',
  'lead_first_name',
  'lead_last_name',
  'guestName',
  'guestNames',
  'guests',
  'rooms',
  'contact',
  'email',
  'phone',
  'phonePrefix',
  'phone_number',
  'phone_number_prefix',
  'notes',
];

/** pino `redact` paths: each sensitive key at the top level and one or two objects down. */
export const REDACT_PATHS: readonly string[] = SENSITIVE_KEYS.flatMap((k) => {
  // fast-redact needs bracket notation for keys that are not identifiers; ours all are.
  const keys = k === 'authorization' ? [k, 'Authorization'] : [k];
  return keys.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);
});

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Secrets shorter than this are not scrubbed as literals: they would match ordinary text. */
const MIN_LITERAL_SECRET_LENGTH = 6;

/**
 * Builds the final scrub applied to every serialized log line. `secrets` are replaced wherever
 * they occur (also in their JSON-escaped spelling); the value of a sensitive key is replaced at any
 * depth when it is a string or a number (objects deeper than `redact` reaches have their own
 * sensitive leaves scrubbed this way).
 */
export function createScrubber(secrets: readonly string[] = []): (line: string) => string {
  const literals = [
    ...new Set(
      secrets
        .filter((s) => s.length >= MIN_LITERAL_SECRET_LENGTH)
        .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]),
    ),
  ]
    // Longest first, so that a secret containing another is replaced whole.
    .sort((a, b) => b.length - a.length);
  const literal =
    literals.length > 0 ? new RegExp(literals.map(escapeRegExp).join('|'), 'g') : undefined;
  const keyed = new RegExp(
    `"(${SENSITIVE_KEYS.map(escapeRegExp).join('|')})":(?:"(?:[^"\\\\]|\\\\.)*"|-?\\d[\\d.eE+-]*)`,
    'gi',
  );
  const censored = JSON.stringify(REDACTED);
  return (line) => {
    let out = literal ? line.replace(literal, REDACTED) : line;
    out = out.replace(keyed, (_m, key: string) => `"${key}":${censored}`);
    return out;
  };
}

export interface CreateLoggerOptions {
  /** @default 'info' */
  readonly level?: Env['LOG_LEVEL'];
  /** Strings never to print (the supplier API secret, …), scrubbed from every line. */
  readonly secrets?: readonly string[];
  /** Fields on every line. @default { service: 'hotel-booking-worker' } */
  readonly base?: Record<string, unknown>;
  /** Where lines go. @default stdout, written synchronously (nothing lost on `process.exit`) */
  readonly destination?: DestinationStream;
}

/** The worker's root logger: JSON lines, level as a label, ISO time, redaction and scrub. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const scrub = createScrubber(options.secrets);
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'hotel-booking-worker', ...options.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // The SDK puts errors under `error`; activities' failures may arrive as `failure`.
      serializers: {
        err: pino.stdSerializers.err,
        error: pino.stdSerializers.err,
        failure: pino.stdSerializers.err,
      },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      hooks: { streamWrite: scrub },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

const PINO_METHOD = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
} as const satisfies Record<LogLevel, string>;

/** Temporal's level for a `LOG_LEVEL` (Temporal has no `fatal` and no `silent`). */
export function temporalLogLevel(level: Env['LOG_LEVEL']): LogLevel {
  switch (level) {
    case 'trace':
      return 'TRACE';
    case 'debug':
      return 'DEBUG';
    case 'info':
      return 'INFO';
    case 'warn':
      return 'WARN';
    default:
      return 'ERROR';
  }
}

/** Keys pino writes itself: SDK metadata with these names is renamed rather than duplicated. */
const RESERVED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

function toFields(meta: LogEntry['meta']): Record<string, unknown> {
  if (meta === undefined) return {};
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) {
    fields[RESERVED.has(k) ? `sdk_${k}` : k] =
      v !== null && typeof v === 'object' ? withoutPayloads(v) : v;
  }
  return fields;
}

/** The size of a payload's body, whatever form it has taken (bytes, base64, a JSON-ed buffer). */
function byteLength(data: unknown): number {
  if (typeof data === 'string') return Math.floor((data.length * 3) / 4);
  if (data instanceof Uint8Array) return data.byteLength;
  if (Array.isArray(data)) return data.length;
  if (data !== null && typeof data === 'object') return Object.keys(data).length;
  return 0;
}

/**
 * A copy of SDK metadata with every payload body (`{ metadata, data }`) replaced by its size.
 * At trace level the SDK logs whole workflow activations and activity tasks, whose payloads hold
 * the workflow's arguments (guest names, contacts), base64-encoded where the redaction of keys
 * cannot see; the payload metadata (encoding, encryption key id) stays. Protobuf messages go
 * through their `toJSON` on the way, as they would when the line is written.
 */
function withoutPayloads(value: object): unknown {
  const json = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Uint8Array) return `[${v.byteLength} bytes]`;
    if (v !== null && typeof v === 'object' && 'data' in v && 'metadata' in v) {
      return { metadata: v.metadata, data: `${REDACTED} payload, ${byteLength(v.data)} bytes` };
    }
    return v;
  });
  return json === undefined ? undefined : JSON.parse(json);
}

/**
 * The logger for `Runtime.install({ logger })`: a `DefaultLogger` (which strips the SDK's internal
 * timestamp symbol and filters by level) whose output goes through `logger`, with the SDK's
 * metadata as fields. Workflow (`log` from `@temporalio/workflow`, via the SDK's logger sink) and
 * activity (`Context.current().log`) loggers reach the runtime logger with their ids attached.
 */
export function temporalLogger(logger: Logger, level: LogLevel): DefaultLogger {
  return new DefaultLogger(level, (entry: LogEntry) => {
    try {
      logger[PINO_METHOD[entry.level]](toFields(entry.meta), entry.message);
    } catch (err) {
      // The SDK calls this from a timer: a throw would crash the worker over a log line. Say that
      // a line was lost, without its metadata (whatever could not be serialized).
      logger.error({ dropped: entry.message, reason: String(err) }, 'a Temporal log line was lost');
    }
  });
}
