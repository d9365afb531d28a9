/**
 * Order events' part of the configuration (docs/order-events.md), called by src/config/index.ts (a
 * leaf, as src/config/ is): a problem is one line naming the variable, the secret never echoed.
 */
import { valueOrFile } from '../config/value-or-file';

/** The variables read here, as src/config/env-schema.ts parses them. */
type Env = Partial<
  Record<'ORDER_EVENTS_URL' | 'ORDER_EVENTS_SECRET' | 'ORDER_EVENTS_SECRET_FILE', string>
>;

/** `whsec_` and the base64 of the key, as Standard Webhooks writes secrets. */
const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;
/** The key lengths Standard Webhooks allows, bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

const HOW = `whsec_ followed by the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} random bytes, e.g. whsec_$(openssl rand -base64 32)`;

/** The endpoint and secret, undefined when `ORDER_EVENTS_URL` is unset (no events). */
export function loadOrderEvents(
  env: Env,
  problems: string[],
): { readonly url: string; readonly secret: string } | undefined {
  const url = env.ORDER_EVENTS_URL;
  if (url === undefined) return undefined;
  const before = problems.length;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed)
    problems.push('ORDER_EVENTS_URL: not a URL (the order system endpoint, http:// or https://)');
  else if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    problems.push(`ORDER_EVENTS_URL: must be http:// or https://, not ${parsed.protocol}//`);
  const secret = readSecret(env, problems);
  if (secret !== undefined) {
    const variable = `ORDER_EVENTS_SECRET${env.ORDER_EVENTS_SECRET_FILE !== undefined ? '_FILE' : ''}`;
    const key = SECRET.exec(secret)?.[1];
    const bytes = key === undefined ? 0 : Buffer.from(key, 'base64').length;
    if (bytes < MIN_KEY_BYTES || bytes > MAX_KEY_BYTES)
      problems.push(`${variable}: must be ${HOW}`);
  }
  if (problems.length > before || secret === undefined) return undefined;
  return { url, secret };
}

function readSecret(env: Env, problems: string[]): string | undefined {
  const { ORDER_EVENTS_SECRET: value, ORDER_EVENTS_SECRET_FILE: file } = env;
  const secret = valueOrFile('ORDER_EVENTS_SECRET', value, file, problems);
  if (secret === undefined) {
    problems.push(
      `ORDER_EVENTS_SECRET: required with ORDER_EVENTS_URL (or ORDER_EVENTS_SECRET_FILE): ${HOW}`,
    );
  }
  return secret ?? undefined;
}
