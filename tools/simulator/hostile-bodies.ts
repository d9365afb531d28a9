/**
 * The hostile mode's bodies (hostile.ts): pure, seeded changes of a genuine JSON answer (a field
 * removed, added, retyped, an unknown enum value, another date format, a bad id, malformed or
 * truncated text) and the error pages and echoes a hostile supplier sends. Each returns the text
 * to send and, in words, what it changed.
 */
import type { Prng } from './prng';

/** A body to send and what was done to it. */
export interface Changed {
  readonly body: string;
  readonly variant: string;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const pick = <T>(prng: Prng, items: readonly T[]): T => items[prng.int(items.length)] as T;

/** One `parent[key]` of a parsed body, with its dotted path. */
interface Slot {
  readonly parent: Json;
  readonly key: string;
  readonly path: string;
}

/** Every keyed slot of a body, depth first, at most 400 (a page of 200 properties is large). */
function slots(root: unknown): Slot[] {
  const out: Slot[] = [];
  const visit = (v: unknown, path: string, depth: number) => {
    if (out.length >= 400 || depth > 6) return;
    if (Array.isArray(v)) {
      v.slice(0, 3).forEach((item, i) => visit(item, `${path}${i}.`, depth + 1));
      return;
    }
    if (!isRecord(v)) return;
    for (const key of Object.keys(v)) {
      out.push({ parent: v, key, path: `${path}${key}` });
      visit(v[key], `${path}${key}.`, depth + 1);
    }
  };
  visit(root, '', 0);
  return out;
}

function parsed(body: string): Json {
  const v: unknown = JSON.parse(body);
  return isRecord(v) ? v : { value: v };
}

/** Stands in for a number literal JavaScript cannot hold (2^53 + 1), replaced after stringify. */
const LITERAL = '\u0000hostile-literal\u0000';

function withLiteral(root: Json, literal: string): string {
  return JSON.stringify(root).replace(JSON.stringify(LITERAL), literal);
}

const ENUM_KEYS = new Set(['status', 'payment_status', 'currency', 'language']);
const UNKNOWN_ENUMS: readonly unknown[] = [
  'BOOKED',
  'confirmed',
  'CONFIRMED ',
  '',
  'UNKNOWN',
  'CANCELED',
  'AVAILABLE_SOON',
  0,
  null,
  true,
  ['CONFIRMED'],
  { code: 'CONFIRMED' },
];

export function unknownEnum(body: string, prng: Prng): Changed {
  const root = parsed(body);
  const all = slots(root);
  const enums = all.filter((s) => ENUM_KEYS.has(s.key));
  const strings = all.filter((s) => typeof s.parent[s.key] === 'string');
  const s = enums.length > 0 ? pick(prng, enums) : strings.length > 0 ? pick(prng, strings) : null;
  const value = pick(prng, UNKNOWN_ENUMS);
  if (s === null) return { body, variant: 'no enum field' };
  s.parent[s.key] = value;
  return { body: JSON.stringify(root), variant: `${s.path} = ${JSON.stringify(value)}` };
}

export function missingField(body: string, prng: Prng): Changed {
  const root = parsed(body);
  const all = slots(root);
  const top = all.filter((s) => s.parent === root);
  const s = top.length > 0 && prng.next() < 0.5 ? pick(prng, top) : all[prng.int(all.length)];
  if (s === undefined) return { body, variant: 'no field' };
  delete s.parent[s.key];
  return { body: JSON.stringify(root), variant: `without ${s.path}` };
}

const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', 'booking_id_v2', 'toString', '', 'x'];
const deep = (n: number): unknown => (n === 0 ? 'bottom' : { next: deep(n - 1) });
const EXTRA_VALUES: readonly unknown[] = [
  null,
  1e308,
  'x'.repeat(2000),
  [1, 'two', null],
  { polluted: true },
  deep(60),
];

export function extraField(body: string, prng: Prng): Changed {
  const root = parsed(body);
  const objects = [
    { obj: root, where: '' },
    ...slots(root).flatMap((s) => {
      const v = s.parent[s.key];
      return isRecord(v) ? [{ obj: v, where: `${s.path}.` }] : [];
    }),
  ];
  const { obj, where } = pick(prng, objects);
  const key = pick(prng, EXTRA_KEYS);
  const value = pick(prng, EXTRA_VALUES);
  // An own property even for `__proto__`, so that it is serialized as a key.
  Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
  return { body: JSON.stringify(root), variant: `extra ${where}${JSON.stringify(key)}` };
}

const DATE_KEYS = /date|check_?in|check_?out|created_at|cancel_penalties|penalty/i;
const DATE_VALUE = /^\d{4}-\d{2}-\d{2}/;
const OTHER_DATES: readonly unknown[] = [
  '10/05/2027',
  '05/10/2027 14:00',
  '20270510',
  '2027-05-10T00:00:00+14:00',
  '2027-W19-1',
  '2027-02-30',
  '0000-00-00',
  '+275760-09-13T00:00:00Z',
  'tomorrow',
  '',
  1_809_993_600,
  1_809_993_600_000,
];

export function dateFormat(body: string, prng: Prng): Changed {
  const root = parsed(body);
  const dates = slots(root).filter(
    (s) =>
      DATE_KEYS.test(s.key) ||
      (typeof s.parent[s.key] === 'string' && DATE_VALUE.test(s.parent[s.key] as string)),
  );
  if (dates.length === 0) return { body, variant: 'no date field' };
  const s = pick(prng, dates);
  const value = pick(prng, OTHER_DATES);
  s.parent[s.key] = value;
  return { body: JSON.stringify(root), variant: `${s.path} = ${JSON.stringify(value)}` };
}

const ID_KEY = /(^|_)id$|^total$/;
const NEGATIVE_IDS = ['-1', '0', '-0', '-9007199254740991', '-1e20', '-2147483648'];
const HUGE_IDS = [
  '9007199254740993',
  '18446744073709551616',
  '1e308',
  '1e400',
  '99999999999999999999999999999',
  '1.5',
  '"123"',
  '2147483648',
];

/** A negative or a huge value in an id field (or, without one, in any number). */
export function badId(body: string, prng: Prng, which: 'negative' | 'huge'): Changed {
  const root = parsed(body);
  const all = slots(root);
  const ids = all.filter((s) => ID_KEY.test(s.key));
  const numbers = all.filter((s) => typeof s.parent[s.key] === 'number');
  const s = ids.length > 0 ? pick(prng, ids) : numbers.length > 0 ? pick(prng, numbers) : null;
  const literal = pick(prng, which === 'negative' ? NEGATIVE_IDS : HUGE_IDS);
  if (s === null) return { body, variant: 'no id field' };
  s.parent[s.key] = LITERAL;
  return { body: withLiteral(root, literal), variant: `${s.path} = ${literal}` };
}

/** An id that is not the one asked for, or not the one stored: another each call. */
export function changingId(body: string, prng: Prng): Changed {
  const root = parsed(body);
  const ids = slots(root).filter((s) => ID_KEY.test(s.key) && s.key !== 'total');
  const s = ids.find((i) => i.key === 'booking_id') ?? ids[0];
  if (s === undefined) return { body, variant: 'no id field' };
  const v = s.parent[s.key];
  s.parent[s.key] =
    typeof v === 'number' ? v + 1_000_000 + prng.int(1_000_000) : `${String(v)}-${prng.hex(6)}`;
  return {
    body: JSON.stringify(root),
    variant: `${s.path} ${String(v)} → ${String(s.parent[s.key])}`,
  };
}

/** `text` with one match of `re`, drawn from `prng`, replaced. */
function nth(text: string, re: RegExp, prng: Prng, replacement: string): string {
  const n = [...text.matchAll(re)].length;
  if (n === 0) return text;
  const at = prng.int(n);
  let i = 0;
  return text.replace(re, (match, ...groups: unknown[]) =>
    i++ === at ? replacement.replace('$1', String(groups[0])) : match,
  );
}

/** Text that is almost JSON. */
export function malformed(body: string, prng: Prng): Changed {
  const at = prng.int(body.length + 1);
  const ways: readonly [string, () => string][] = [
    [
      'a stray character',
      () =>
        `${body.slice(0, at)}${pick(prng, ['{', '}', ']', ',', ':', '"', '\\', '\u0000'])}${body.slice(at)}`,
    ],
    ['single quotes', () => body.replaceAll('"', "'")],
    ['a trailing comma', () => body.replace(/}\s*$/, ',}')],
    ['NaN for a number', () => nth(body, /:-?\d+(\.\d+)?/g, prng, ':NaN')],
    ['a bare word', () => nth(body, /:"([^"\\]{2,})"/g, prng, ':$1')],
    ['a byte order mark', () => `\uFEFF${body}`],
    ['two documents', () => `${body}${body}`],
    ['unquoted keys', () => body.replace(/"([a-z_]+)":/g, '$1:')],
    ['an XSSI prefix', () => `)]}',\n${body}`],
    ['a comment', () => `/* ok */${body}`],
  ];
  const [variant, make] = pick(prng, ways);
  return { body: make(), variant };
}

/** The answer cut short: a complete HTTP message whose JSON ends early. */
export function truncated(body: string, prng: Prng): Changed {
  const at = prng.int(Math.max(1, body.length));
  return { body: body.slice(0, at), variant: `cut at ${at} of ${body.length}` };
}

/** Bodies of a 2xx that say something failed. */
export const ERROR_BODIES: readonly string[] = [
  '{"detail":"Internal Server Error"}',
  '{"error":{"code":500,"message":"booking engine unavailable"}}',
  '{"status":"ERROR","message":"Booking failed"}',
  '{"status":"FAILED"}',
  '{"success":false}',
  '{}',
  '[]',
  'null',
  '"error"',
  '',
];

/** A proxy's error page. */
export function htmlPage(status: number): string {
  return `<html>\r\n<head><title>${status} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>${status} Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

/** What a request carried, for a supplier that echoes it in its errors. */
export interface SeenRequest {
  readonly target: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** An error body echoing the request: its header, its key or signature alone, its body. */
export function echo(seen: SeenRequest, status: number, prng: Prng): Changed {
  const header = seen.authorization ?? '';
  const key = /API-Key=([^,]*)/.exec(header)?.[1] ?? '';
  const signature = /Signature=([^,]*)/.exec(header)?.[1] ?? '';
  const ways: readonly [string, unknown][] = [
    ['the header', { detail: `rejected authorization: ${header}` }],
    ['the key', { detail: `Unknown API key ${key}` }],
    ['the signature', { message: `signature ${signature} does not match` }],
    ['the body', { detail: `could not process ${seen.body || seen.target}` }],
    [
      'a validation list',
      {
        detail: [
          {
            type: 'value_error',
            loc: ['header', header],
            msg: `bad value ${header}`,
            input: header,
          },
          { type: 'value_error', loc: ['body'], msg: `invalid: ${seen.body}`, input: seen.body },
        ],
      },
    ],
  ];
  const [variant, value] = pick(prng, ways);
  return { body: JSON.stringify(value), variant: `${status} echoing ${variant}` };
}
