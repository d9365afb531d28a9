/**
 * Payload encryption keys and codec server settings from the parsed environment ({@link Env}),
 * each problem a {@link ConfigError} naming the variable. Key material never appears in an error,
 * a log line or `util.inspect` output: keys are held as `KeyObject`s.
 */
import { createHash, createSecretKey, type KeyObject } from 'node:crypto';
import { developmentKeyDecision } from './development-key-decision';
import type { Env } from './env-schema';
import { ConfigError } from './errors';
import { valueOrFile } from './value-or-file';

/** AES-256: 32 bytes of key. */
export const KEY_BYTES = 32;

/**
 * The id of the development key used when no key is configured: derived from a public string, so
 * anything it encrypts is readable by anyone with this source. Demos and tests, never real data.
 */
export const DEV_KEY_ID = 'dev-insecure';

/** The bearer token the codec server accepts when `CODEC_SERVER_TOKEN` is unset (not in production). */
export const DEV_CODEC_TOKEN = 'dev-codec-token';

/** In production a codec server token shorter than this is refused (it guards decryption). */
export const MIN_PRODUCTION_TOKEN_LENGTH = 16;

/** `keyId` as it appears in payload metadata and error messages. */
export const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Standard or URL-safe base64, padding optional (what `openssl rand -base64 32` prints, and more). */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** A payload key as read: its id and its 32 bytes (the codec's `EncryptionKey`). */
export interface Key {
  readonly id: string;
  readonly key: KeyObject;
}

/** The fixed development key; see {@link DEV_KEY_ID}. */
export function developmentKey(): Key {
  const bytes = createHash('sha256')
    .update('hotel-booking-orchestrator: dev-insecure payload key, public, never for real data')
    .digest();
  return { id: DEV_KEY_ID, key: createSecretKey(bytes) };
}

/**
 * Parses `keyId:base64,keyId:base64,...` (commas or whitespace between). A problem names an entry
 * by its position or valid key id, never by its text (a malformed entry may be a bare key).
 */
export function parseEncryptionKeys(
  spec: string,
  variable: string,
  problems: string[] = [],
): Key[] {
  const keys: Key[] = [];
  const seen = new Set<string>();
  const entries = spec.split(/[\s,]+/).filter((e) => e !== '');
  if (entries.length === 0) problems.push(`${variable}: no key given`);
  entries.forEach((entry, index) => {
    const parsed = parseKeyEntry(entry, `${variable}: entry ${index + 1}`, seen);
    if (typeof parsed === 'string') problems.push(parsed);
    else keys.push(parsed);
  });
  return keys;
}

/** One `keyId:base64` entry as a key, or its problem, naming it by `where` and its id. */
function parseKeyEntry(entry: string, where: string, seen: Set<string>): Key | string {
  const colon = entry.indexOf(':');
  if (colon < 0) return `${where} is not of the form keyId:base64`;
  const id = entry.slice(0, colon);
  const material = entry.slice(colon + 1);
  if (!KEY_ID.test(id)) return `${where}: the key id must be 1-64 characters of [A-Za-z0-9._-]`;
  if (seen.has(id)) return `${where}: key id "${id}" is listed twice`;
  seen.add(id);
  if (!BASE64.test(material)) return `${where} (key id "${id}"): the key is not base64`;
  const bytes = Buffer.from(material, 'base64');
  if (bytes.length !== KEY_BYTES) {
    return `${where} (key id "${id}"): the key must decode to exactly ${KEY_BYTES} bytes, got ${bytes.length}`;
  }
  const key = createSecretKey(bytes);
  bytes.fill(0);
  return { id, key };
}

/**
 * The payload encryption keys from `PAYLOAD_ENCRYPTION_KEYS` or `PAYLOAD_ENCRYPTION_KEYS_FILE`
 * (not both: which wins would decide which key encrypts). Neither: the development key where
 * {@link developmentKeyDecision} allows it; its material under any id is refused in production.
 * @throws {ConfigError} naming the variable and the entry at fault, never the key.
 */
export function loadEncryptionConfig(env: Env): {
  readonly keys: readonly [Key, ...Key[]];
  readonly development: boolean;
  /** One line to show when the development key is used with a Temporal that is not local. */
  readonly warning?: string;
} {
  const problems: string[] = [];
  const file = env.PAYLOAD_ENCRYPTION_KEYS_FILE;
  const variable = file !== undefined ? 'PAYLOAD_ENCRYPTION_KEYS_FILE' : 'PAYLOAD_ENCRYPTION_KEYS';
  let keys: Key[] = [];
  let development = false;
  let warning: string | undefined;

  const spec = valueOrFile('PAYLOAD_ENCRYPTION_KEYS', env.PAYLOAD_ENCRYPTION_KEYS, file, problems);
  if (typeof spec === 'string') {
    keys = parseEncryptionKeys(spec, variable, problems);
  } else if (spec === undefined) {
    const decision = developmentKeyDecision({
      temporalAddress: env.TEMPORAL_ADDRESS,
      apiKey: env.TEMPORAL_API_KEY !== undefined || env.TEMPORAL_API_KEY_FILE !== undefined,
      nodeEnv: env.NODE_ENV,
      keyId: DEV_KEY_ID,
    });
    if (decision.use) {
      keys = [developmentKey()];
      development = true;
      warning = decision.warning;
    } else {
      problems.push(decision.problem);
    }
  }

  if (env.NODE_ENV === 'production' && !development) {
    const dev = developmentKey().key;
    for (const k of keys.filter((k) => k.key.equals(dev))) {
      problems.push(
        `${variable}: key id "${k.id}" is the public development key, refused when NODE_ENV=production`,
      );
    }
  }

  const [first, ...rest] = keys;
  if (problems.length > 0 || first === undefined) throw new ConfigError(problems);
  return { keys: [first, ...rest], development, ...(warning !== undefined ? { warning } : {}) };
}

/**
 * The codec server's token, port and allowed origins. `CODEC_SERVER_TOKEN` unset: the development
 * token, refused in production (where a token needs {@link MIN_PRODUCTION_TOKEN_LENGTH} chars).
 * @throws {ConfigError} naming the variable at fault, never the token.
 */
export function loadCodecServerConfig(env: Env): {
  readonly token: string;
  readonly port: number;
  readonly corsOrigins: readonly string[];
  readonly developmentToken: boolean;
} {
  const problems: string[] = [];
  const production = env.NODE_ENV === 'production';
  let token = env.CODEC_SERVER_TOKEN;
  const developmentToken = token === undefined;
  if (token === undefined) {
    if (production) {
      problems.push(
        `CODEC_SERVER_TOKEN: required when NODE_ENV=production; the development token is refused`,
      );
    }
    token = DEV_CODEC_TOKEN;
  } else if (production && token === DEV_CODEC_TOKEN) {
    problems.push('CODEC_SERVER_TOKEN: the development token is refused when NODE_ENV=production');
  } else if (production && token.length < MIN_PRODUCTION_TOKEN_LENGTH) {
    problems.push(
      `CODEC_SERVER_TOKEN: must be at least ${MIN_PRODUCTION_TOKEN_LENGTH} characters when NODE_ENV=production`,
    );
  }
  if (/\s/.test(token)) problems.push('CODEC_SERVER_TOKEN: must not contain whitespace');

  const corsOrigins: string[] = [];
  for (const raw of env.CODEC_CORS_ORIGIN.split(',')) {
    const value = raw.trim();
    if (value === '') continue;
    const origin = parseOrigin(value);
    if (origin === undefined) {
      problems.push(
        `CODEC_CORS_ORIGIN: "${value}" is not an origin (scheme://host[:port], no path)`,
      );
    } else {
      corsOrigins.push(origin);
    }
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { token, port: env.CODEC_SERVER_PORT, corsOrigins, developmentToken };
}

/** `value` as the browser sends it in `Origin` (no trailing slash), or undefined. */
function parseOrigin(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // Only a bare origin is meaningful here; `new URL` would silently accept a path.
  if (value.replace(/\/$/, '').toLowerCase() !== url.origin.toLowerCase()) return undefined;
  return url.origin;
}

/**
 * The codec server for a client of it: `CODEC_SERVER_URL`, else the local one on
 * `CODEC_SERVER_PORT`; its token, else the development token outside production.
 */
export function codecServerTarget(env: Env): {
  readonly url: string;
  /** CODEC_SERVER_URL was set (the default is only a guess). */
  readonly configured: boolean;
  readonly token: string | undefined;
} {
  return {
    url: (env.CODEC_SERVER_URL ?? `http://127.0.0.1:${env.CODEC_SERVER_PORT}`).replace(/\/+$/, ''),
    configured: env.CODEC_SERVER_URL !== undefined,
    token: env.CODEC_SERVER_TOKEN ?? (env.NODE_ENV === 'production' ? undefined : DEV_CODEC_TOKEN),
  };
}
