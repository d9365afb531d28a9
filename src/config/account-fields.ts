/**
 * Reading one account's fields of SUPPLIER_ACCOUNTS (accounts.ts): its id, base URL and
 * credentials, each problem pushed as one line; a key or a secret is never in one, a path is.
 */
import { readFileSync } from 'node:fs';
import { SUPPLIER_ACCOUNT_ID } from '../shared/supplier-accounts';
import { shown } from './errors';
import { isLoopbackUrl } from './loopback';

/** Simulator credentials used when none are configured: only valid against the local simulator. */
export const DEV_CREDENTIALS = { key: 'demo-key', secret: 'demo-secret-change-me' } as const;

export const MISSING = {
  key: 'required (key or keyFile)',
  secret: 'required (secret or secretFile)',
} as const;

/** A credential neither of whose forms is set. */
const ABSENT = Symbol('absent');
/** A credential with a problem, already pushed. */
const REFUSED = Symbol('refused');

/** A file's text, or the error code of reading it. */
export function readText(path: string): string | { code: string } {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    return { code: (err as NodeJS.ErrnoException).code ?? 'error' };
  }
}

/** A plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An entry's id when it is a usable one (SUPPLIER_ACCOUNT_ID). */
export function idOf(entry: unknown): string | undefined {
  if (!isRecord(entry)) return undefined;
  const id = entry.id;
  return typeof id === 'string' && SUPPLIER_ACCOUNT_ID.test(id) ? id : undefined;
}

/** `baseUrl`: an http(s) URL, plain http:// only on a loopback host. */
export function parseBaseUrl(value: unknown, at: string, problems: string[]): string | undefined {
  if (value === undefined) {
    problems.push(`${at}required (the supplier's base URL, https://)`);
    return undefined;
  }
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    problems.push(`${at}must be an https:// URL (http:// on a loopback host)`);
    return undefined;
  }
  if (url.protocol === 'http:' && !isLoopbackUrl(value as string)) {
    problems.push(`${at}plain http:// only on a loopback host; use https://`);
    return undefined;
  }
  return value as string;
}

/**
 * `key` or `keyFile` (`secret` or `secretFile`): the value, {@link ABSENT} when neither is set,
 * {@link REFUSED} when one has a problem (pushed). The value is never in a problem; a path is.
 */
function credential(
  entry: Record<string, unknown>,
  name: 'key' | 'secret',
  at: (field: string) => string,
  problems: string[],
): string | typeof ABSENT | typeof REFUSED {
  const fileField = `${name}File` as const;
  const inline = entry[name];
  const file = entry[fileField];
  if (inline !== undefined && file !== undefined) {
    problems.push(`${at(name)}set ${name} or ${fileField}, not both`);
    return REFUSED;
  }
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '') {
      problems.push(`${at(fileField)}must be the path of a file holding the ${name}`);
      return REFUSED;
    }
    const read = readText(file);
    if (typeof read !== 'string') {
      problems.push(`${at(fileField)}cannot read ${shown(file)} (${read.code})`);
      return REFUSED;
    }
    const value = read.trim();
    if (value !== '') return value;
    problems.push(`${at(fileField)}${shown(file)} is empty`);
    return REFUSED;
  }
  if (inline === undefined) return ABSENT;
  if (typeof inline !== 'string' || inline.trim() === '') {
    problems.push(`${at(name)}must be a non-empty string`);
    return REFUSED;
  }
  return inline;
}

/**
 * The account's key and secret: its own, the simulator's demo ones on a loopback `baseUrl` that
 * names neither, empty ones when loaded without requiring them; undefined after a problem.
 */
export function credentials(
  entry: Record<string, unknown>,
  baseUrl: string | undefined,
  at: (field: string) => string,
  problems: string[],
  options: { readonly requireSupplierCredentials?: boolean },
): { key: string; secret: string } | undefined {
  let key = credential(entry, 'key', at, problems);
  let secret = credential(entry, 'secret', at, problems);
  if (key === ABSENT && secret === ABSENT && baseUrl !== undefined && isLoopbackUrl(baseUrl)) {
    ({ key, secret } = DEV_CREDENTIALS);
  }
  if (options.requireSupplierCredentials === false) {
    if (key === ABSENT) key = '';
    if (secret === ABSENT) secret = '';
  } else {
    if (key === ABSENT) problems.push(`${at('key')}${MISSING.key}`);
    if (secret === ABSENT) problems.push(`${at('secret')}${MISSING.secret}`);
  }
  return typeof key === 'string' && typeof secret === 'string' ? { key, secret } : undefined;
}
