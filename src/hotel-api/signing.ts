import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request timestamp may be from the supplier's clock, in seconds (the seed says 5 minutes). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface Credentials {
  readonly key: string;
  /** The company's API secret. Never logged, never sent: only the HMAC of it travels. */
  readonly secret: string;
}

/** The hex HMAC-SHA256, keyed with the secret, over `key + secret + timestamp` (no separators). */
export function computeSignature(key: string, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${key}${secret}${timestamp}`).digest('hex');
}

/**
 * The `authorization` header value for one request, signed at `nowMs` (epoch milliseconds).
 * Called at send time for every attempt, so every retry carries a fresh timestamp.
 */
export function sign({ key, secret }: Credentials, nowMs: number): string {
  const timestamp = Math.floor(nowMs / 1000);
  return `API-Key=${key},Signature=${computeSignature(key, secret, timestamp)},Timestamp=${timestamp}`;
}

export interface ParsedAuthorization {
  readonly key: string;
  readonly signature: string;
  readonly timestamp: number;
}

/** Parses `API-Key=..,Signature=..,Timestamp=..`; `undefined` when the header is malformed. */
export function parseAuthorization(header: string): ParsedAuthorization | undefined {
  const fields = new Map<string, string>();
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const key = fields.get('API-Key');
  const signature = fields.get('Signature');
  const ts = fields.get('Timestamp');
  if (!key || !signature || !ts || !/^\d{1,12}$/.test(ts)) return undefined;
  return { key, signature, timestamp: Number(ts) };
}

export type VerifyResult = 'ok' | 'bad-signature' | 'expired';

/** Verifies a parsed header against the secret held for its key: constant-time, 5-minute window. */
export function verifySignature(
  parsed: ParsedAuthorization,
  secret: string,
  nowMs: number,
  toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): VerifyResult {
  const expected = Buffer.from(computeSignature(parsed.key, secret, parsed.timestamp), 'utf8');
  const given = Buffer.from(parsed.signature, 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'bad-signature';
  if (Math.abs(Math.floor(nowMs / 1000) - parsed.timestamp) > toleranceSeconds) return 'expired';
  return 'ok';
}
