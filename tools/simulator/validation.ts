/**
 * FastAPI-style validation: each problem is a `{ type, loc, msg }` issue (pydantic v2 wording),
 * collected across header, path, query and body, and answered together as a 422
 * `{ "detail": [issue, ...] }`.
 */
import { dateProblem } from './dates';
import type { Language } from './reference-lists';

export type Loc = readonly (string | number)[];

/** One entry of a FastAPI 422 `detail` list. */
export interface ValidationIssue {
  readonly type: string;
  readonly loc: Loc;
  readonly msg: string;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

export const missing = (loc: Loc): ValidationIssue => ({
  type: 'missing',
  loc,
  msg: 'Field required',
});

/** The 422 issue of a request without the `authorization` header. */
export const MISSING_AUTHORIZATION: ValidationIssue = missing(['header', 'authorization']);

export const stringType = (loc: Loc): ValidationIssue => ({
  type: 'string_type',
  loc,
  msg: 'Input should be a valid string',
});

export const modelType = (loc: Loc): ValidationIssue => ({
  type: 'model_attributes_type',
  loc,
  msg: 'Input should be a valid dictionary or object to extract fields from',
});

export const valueError = (loc: Loc, message: string): ValidationIssue => ({
  type: 'value_error',
  loc,
  msg: `Value error, ${message}`,
  ctx: { error: message },
});

export const tooLong = (loc: Loc, max: number, actual: number): ValidationIssue => ({
  type: 'too_long',
  loc,
  msg: `List should have at most ${max} item${max === 1 ? '' : 's'} after validation, not ${actual}`,
  ctx: { field_type: 'List', max_length: max, actual_length: actual },
});

export const tooShortList = (loc: Loc, min: number, actual: number): ValidationIssue => ({
  type: 'too_short',
  loc,
  msg: `List should have at least ${min} item${min === 1 ? '' : 's'} after validation, not ${actual}`,
  ctx: { field_type: 'List', min_length: min, actual_length: actual },
});

export const stringTooShort = (loc: Loc, min: number): ValidationIssue => ({
  type: 'string_too_short',
  loc,
  msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`,
  ctx: { min_length: min },
});

export const stringTooLong = (loc: Loc, max: number): ValidationIssue => ({
  type: 'string_too_long',
  loc,
  msg: `String should have at most ${max} character${max === 1 ? '' : 's'}`,
  ctx: { max_length: max },
});

/** Body of a 422 with issues. */
export function validationBody(issues: readonly ValidationIssue[]): string {
  return JSON.stringify({ detail: issues });
}

const INTEGER = /^\s*[+-]?\d{1,30}\s*$/;

/** Parses a pydantic `int` from a query or path string; pushes `int_parsing` when it is not one. */
export function parseInteger(raw: string, loc: Loc, issues: ValidationIssue[]): number | undefined {
  if (!INTEGER.test(raw)) {
    issues.push({
      type: 'int_parsing',
      loc,
      msg: 'Input should be a valid integer, unable to parse string as an integer',
    });
    return undefined;
  }
  return Number(raw);
}

/** A required integer query parameter (the last value when repeated, as Starlette does). */
export function requiredInteger(
  params: URLSearchParams,
  name: string,
  issues: ValidationIssue[],
): number | undefined {
  const raw = lastValue(params, name);
  if (raw === undefined) {
    issues.push(missing(['query', name]));
    return undefined;
  }
  return parseInteger(raw, ['query', name], issues);
}

/** The last value of a repeated query parameter; scalar parameters take it, as Starlette does. */
export function lastValue(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  return all.length === 0 ? undefined : all[all.length - 1];
}

/** A required string query parameter. */
export function requiredString(
  params: URLSearchParams,
  name: string,
  issues: ValidationIssue[],
): string | undefined {
  const raw = lastValue(params, name);
  if (raw === undefined) issues.push(missing(['query', name]));
  return raw;
}

/** A `YYYY-MM-DD` date query parameter, required. */
export function requiredDate(
  params: URLSearchParams,
  name: string,
  issues: ValidationIssue[],
): string | undefined {
  const raw = lastValue(params, name);
  if (raw === undefined) {
    issues.push(missing(['query', name]));
    return undefined;
  }
  const problem = dateProblem(raw);
  if (problem !== undefined) {
    issues.push({
      type: 'date_from_datetime_parsing',
      loc: ['query', name],
      msg: `Input should be a valid date or datetime, ${problem}`,
      ctx: { error: problem },
    });
    return undefined;
  }
  return raw;
}

/** A language query parameter: `en` or `it`; `fallback` when absent, `undefined` + issue when invalid. */
export function language(
  params: URLSearchParams,
  name: string,
  issues: ValidationIssue[],
  required: boolean,
): Language | undefined {
  const raw = lastValue(params, name);
  if (raw === undefined) {
    if (required) {
      issues.push(missing(['query', name]));
      return undefined;
    }
    return 'en';
  }
  if (raw === 'en' || raw === 'it') return raw;
  issues.push({
    type: 'literal_error',
    loc: ['query', name],
    msg: "Input should be 'en' or 'it'",
    ctx: { expected: "'en' or 'it'" },
  });
  return undefined;
}
