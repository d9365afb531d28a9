/**
 * The fast path's checks (input-fast-path.ts): each returns what zod would for a value it can
 * vouch for and throws {@link UNSURE} for anything else, so the caller asks zod itself.
 */
import { durationToMs } from './duration';

/** Thrown when an input is not one the fast path vouches for. */
export const UNSURE = Symbol('unsure');

export type Input = Record<string, unknown>;
export type Out = Record<string, unknown>;
export type Check = (v: unknown) => unknown;

export function unsure(): never {
  throw UNSURE;
}

/** `fn(v)`, or `undefined` when the fast path cannot vouch for `v`. */
export function vouch<T>(fn: (v: unknown) => T, v: unknown): T | undefined {
  try {
    return fn(v);
  } catch (err) {
    if (err === UNSURE) return undefined;
    throw err;
  }
}

/** A plain JSON object whose keys are all among `keys` (zod's strictObject). */
export function strict(v: unknown, keys: ReadonlySet<string>): Input {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) unsure();
  if (Object.getPrototypeOf(v) !== Object.prototype) unsure();
  for (const k in v) if (!keys.has(k)) unsure();
  return v as Input;
}

/** How one field of an object is read: from `input` into `out`, under `key`. */
export type Read = (out: Out, input: Input, key: string) => void;

export const required =
  (check: Check): Read =>
  (out, input, key) => {
    if (!(key in input)) unsure();
    out[key] = check(input[key]);
  };

/** An optional field; `nullIsAbsent`: wrapped in `absent()` (rule 7). */
export const optional =
  (check: Check, nullIsAbsent = true): Read =>
  (out, input, key) => {
    if (!(key in input)) return;
    const v = input[key];
    out[key] = v === undefined || (nullIsAbsent && v === null) ? undefined : check(v);
  };

export const withDefault =
  (check: Check, fallback: () => unknown, nullIsAbsent = true): Read =>
  (out, input, key) => {
    const v = input[key];
    out[key] = v === undefined || (nullIsAbsent && v === null) ? fallback() : check(v);
  };

/** The keys of every object the fast path reads, for the test that holds them to the schemas. */
const SHAPES: ReadonlySet<string>[] = [];
export const vouchedShapes = (): readonly ReadonlySet<string>[] => SHAPES;

/** A strict object of `fields` (zod's strictObject), each read in turn: one line a field. */
export function object(fields: Record<string, Read>): Check {
  const keys = new Set(Object.keys(fields));
  SHAPES.push(keys);
  return (v) => {
    const input = strict(v, keys);
    const out: Out = {};
    for (const key in fields) fields[key]!(out, input, key);
    return out;
  };
}

export const string =
  (re?: RegExp, max = Infinity): Check =>
  (v) => {
    if (typeof v !== 'string' || v.length > max || (re && !re.test(v))) unsure();
    return v;
  };

/** `z.string().trim().min(1).max(max)`: the trimmed string. */
export const nonBlank =
  (max: number): Check =>
  (v) => {
    if (typeof v !== 'string') unsure();
    const t = v.trim();
    if (t.length < 1 || t.length > max) unsure();
    return t;
  };

export const number =
  (min: number, max: number): Check =>
  (v) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) unsure();
    return v;
  };

export const positiveInt: Check = (v) => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) unsure();
  return v;
};

export const boolean: Check = (v) => {
  if (typeof v !== 'boolean') unsure();
  return v;
};

/** A positive duration (`'30s'`, `'15m'`, ms), as the contract's `duration()` refines it. */
export const duration: Check = (v) => {
  if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) unsure();
  const ms = durationToMs(v);
  if (ms === undefined || !(ms > 0)) unsure();
  return v;
};

// zod 4.6.7's own pattern (`z.regexes.email`); test/shared/input-fast-path.test.ts fails if
// zod's differs. The date patterns are in dates.ts.
export const EMAIL_RE = new RegExp(
  String.raw`^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`,
);
