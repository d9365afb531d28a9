/**
 * Rules the contract checks in code, written as patterns for the published JSON Schemas
 * (contract/): the duration syntax with its smallest value, and text that is not blank. They are
 * ECMA-262 patterns that Python's `re` and Java's `java.util.regex` read the same way: the digits
 * are `[0-9]` (Python's `\d` also matches other scripts' digits) and the white space is spelled out
 * (the engines' `\s` differ). The product does not match with them: it decides with
 * `durationToMs` and `String.prototype.trim` (shared/duration.ts, the zod contracts), and
 * test/contract-agreement.test.ts holds the patterns to those verdicts.
 */
import { UNIT_MS } from './duration';

/**
 * The characters `String.prototype.trim` removes and JavaScript's `\s` matches (white space and
 * line terminators), as the body of a character class.
 */
export const WHITE_SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

const SPACE = `[${WHITE_SPACE}]`;
const NOT_SPACE = `[^${WHITE_SPACE}]`;

/**
 * A string that is not blank and at most `max` characters long once trimmed (the contract trims
 * such text and counts what is left).
 */
export function nonBlankPattern(max: number): string {
  const middle = max >= 2 ? `(?:[\\s\\S]{0,${max - 2}}${NOT_SPACE})?` : '';
  return `^${SPACE}*${NOT_SPACE}${middle}${SPACE}*$`;
}

/** `[d-9]`, the digits greater than `d`; undefined for 9. */
function digitsAbove(d: string): string | undefined {
  const n = Number(d);
  if (n >= 9) return undefined;
  return n === 8 ? '9' : `[${n + 1}-9]`;
}

/**
 * The decimal expansion of `1 / q` (q > 1) after the point: the digits before the repeating part
 * and the repeating part (`''` when the expansion ends).
 */
function expansionOfReciprocal(q: number): { head: string; cycle: string } {
  const seen = new Map<number, number>();
  let digits = '';
  let r = 1;
  while (r !== 0 && !seen.has(r)) {
    seen.set(r, digits.length);
    r *= 10;
    digits += String(Math.floor(r / q));
    r %= q;
  }
  if (r === 0) return { head: digits, cycle: '' };
  const start = seen.get(r)!;
  return { head: digits.slice(0, start), cycle: digits.slice(start) };
}

/**
 * The digits F after a decimal point such that `0.F >= 1 / q`: F first exceeds the expansion of
 * 1/q at some digit, having matched it until then (or, when the expansion ends, starts with it).
 */
export function fractionAtLeastReciprocal(q: number): string {
  const { head, cycle } = expansionOfReciprocal(q);
  const ways: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const above = digitsAbove(head[i]!);
    if (above) ways.push(`${head.slice(0, i)}${above}`);
  }
  if (cycle === '') ways.push(head);
  else {
    for (let i = 0; i < cycle.length; i++) {
      const above = digitsAbove(cycle[i]!);
      if (above) ways.push(`${head}(?:${cycle})*${cycle.slice(0, i)}${above}`);
    }
  }
  return `(?:${ways.join('|')})[0-9]*`;
}

/**
 * The duration syntax of `durationToMs` with a value that does not round to 0 ms: a number
 * (digits, optionally a point and digits) and a unit, white space allowed around and between
 * them. A whole number of at least 1 is at least 1 ms in every unit; below 1, the number must
 * reach half a millisecond in its unit (`'0.5ms'`, `'0.0005s'`), which rounds to 1 ms.
 */
export function durationPattern(): string {
  const units = Object.keys(UNIT_MS);
  const ways = [`0*[1-9][0-9]*(?:\\.[0-9]+)?${SPACE}*(?:${units.join('|')})`];
  for (const unit of units) {
    ways.push(`0+\\.${fractionAtLeastReciprocal(2 * UNIT_MS[unit]!)}${SPACE}*${unit}`);
  }
  return `^${SPACE}*(?:${ways.join('|')})${SPACE}*$`;
}
