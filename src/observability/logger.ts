/**
 * Structured JSON logs (pino), the Temporal runtime's included, the SDK's metadata as fields.
 * Secrets and personal data are kept out twice: pino `redact` censors the {@link SENSITIVE_KEYS}
 * down two levels, and a final scrub of every line ({@link createScrubber}) replaces the secrets
 * wherever they appear and a sensitive key's value at any depth.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { DefaultLogger, type LogEntry, type LogLevel } from '@temporalio/worker';
import type { Env } from '../config';

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * Keys whose values are never logged: credentials, and guest data in the contract's spelling and
 * the supplier API's. Matched case-insensitively by the final scrub.
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
 * The final scrub of every serialized line: `secrets` (also JSON-escaped) wherever they occur, and
 * a sensitive key's string or number value at any depth (deeper than `redact` reaches).
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
  return (line) =>
    (literal ? line.replace(literal, REDACTED) : line).replace(
      keyed,
      (_m, key: string) => `"${key}":${censored}`,
    );
}

export interface CreateLoggerOptions {
  /** @default 'info' */
  readonly level?: Env['LOG_LEVEL'];
  /** Strings never to print (the supplier API secret, …), scrubbed from every line. */
  readonly secrets?: readonly string[];
  /** Where lines go. @default stdout, written synchronously (nothing lost on `process.exit`) */
  readonly destination?: DestinationStream;
}

/** The worker's root logger: JSON lines, level as a label, ISO time, redaction and scrub. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const scrub = createScrubber(options.secrets);
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'hotel-booking-worker' },
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

/** Temporal's level for a `LOG_LEVEL` (Temporal has no `fatal` and no `silent`). */
export function temporalLogLevel(level: Env['LOG_LEVEL']): LogLevel {
  return level === 'fatal' || level === 'silent' ? 'ERROR' : (level.toUpperCase() as LogLevel);
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
 * A copy of SDK metadata with every payload body (`{ metadata, data }`) replaced by its size: at
 * trace level the SDK logs whole activations, whose payloads hold guest data base64-encoded, out
 * of the redaction's sight. Protobuf messages go through their `toJSON`, as when written.
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
 * The logger for `Runtime.install({ logger })`: a `DefaultLogger` (it strips the SDK's timestamp
 * symbol and filters by level) writing through `logger`, the SDK's metadata as fields.
 */
export function temporalLogger(logger: Logger, level: LogLevel): DefaultLogger {
  return new DefaultLogger(level, (entry: LogEntry) => {
    try {
      logger[entry.level.toLowerCase() as Lowercase<LogLevel>](toFields(entry.meta), entry.message);
    } catch (err) {
      // The SDK calls this from a timer: a throw would crash the worker over a log line. Say that
      // a line was lost, without its metadata (whatever could not be serialized).
      logger.error({ dropped: entry.message, reason: String(err) }, 'a Temporal log line was lost');
    }
  });
}
