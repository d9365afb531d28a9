/** The arguments commands share, each checked with a usage error (exit 2) naming its flag. */
import { CONTENT_LANGUAGES, type ContentLanguage } from '../../catalogue';
import { usageError } from '../cli-errors';

/** `it` → `IT`; exit 2 unless two letters. */
export function parseCountry(raw: string): string {
  if (!/^[A-Za-z]{2}$/.test(raw)) {
    throw usageError(`--country: "${raw}" is not a 2-letter ISO 3166-1 country code (e.g. IT)`, [
      { field: '--country', message: 'must be 2 letters (ISO 3166-1 alpha-2)' },
    ]);
  }
  return raw.toUpperCase();
}

/** `en` or `it`; exit 2 otherwise. */
export function parseContentLanguage(raw: string): ContentLanguage {
  const lang = raw.toLowerCase();
  if (!(CONTENT_LANGUAGES as readonly string[]).includes(lang)) {
    throw usageError(`--language: "${raw}" is not one of ${CONTENT_LANGUAGES.join(', ')}`, [
      { field: '--language', message: `must be one of ${CONTENT_LANGUAGES.join(', ')}` },
    ]);
  }
  return lang as ContentLanguage;
}

/** `--language` of `content sync`: one language, or `all` for every one, in order. */
export function parseSyncLanguages(raw: string): ContentLanguage[] {
  return raw.toLowerCase() === 'all' ? [...CONTENT_LANGUAGES] : [parseContentLanguage(raw)];
}

/** A positive integer of `flag` (`what` it is, for the message); exit 2 otherwise. */
export function parsePositiveInt(flag: string, raw: string, what?: string, issue?: string) {
  const n = Number(raw);
  if (Number.isSafeInteger(n) && n > 0) return n;
  const is = what === undefined ? 'a positive integer' : `${what} (a positive integer)`;
  throw usageError(`${flag}: "${raw}" is not ${is}`, [
    { field: flag, message: issue ?? 'a positive integer' },
  ]);
}

/** A number of `option` within `check`'s bounds; undefined when not given. */
export function parseNumber(
  option: string,
  raw: string | undefined,
  check: { min: number; max?: number; integer?: boolean },
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  const ok =
    raw.trim() !== '' &&
    Number.isFinite(n) &&
    n >= check.min &&
    (check.max === undefined || n <= check.max) &&
    (!check.integer || Number.isInteger(n));
  if (ok) return n;
  const to = check.max !== undefined ? ` to ${check.max}` : '';
  const what = `${check.integer ? 'an integer' : 'a number'} from ${check.min}${to}`;
  throw usageError(`${option}: "${raw}" is not ${what}`, [
    { field: option, message: `must be ${what}` },
  ]);
}

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The account a supplier command goes to (the order's `supplier`). */
export const SUPPLIER_OPTION = [
  '--supplier <account>',
  'the supplier account, an id of SUPPLIER_ACCOUNTS (default: the HOTEL_API_* one)',
] as const;
