/**
 * Validation of the `POST /booking` body, pydantic-style: every problem becomes an issue with its
 * `loc` under `body`, and all are reported together.
 */
import type { Loc, ValidationIssue } from './validation';
import { missing, modelType, stringTooShort, stringType, tooShortList } from './validation';

/** One room of a booking request, as the simulator keeps it. */
export interface RoomRequest {
  readonly firstName: string;
  readonly lastName: string;
  readonly notes: string | null;
}

/** A valid booking request body. */
export interface BookingRequest {
  readonly rooms: readonly RoomRequest[];
  readonly phonePrefix: string;
  readonly phone: string;
  readonly email: string | null;
  /** As given: an object of `custom_field_N` strings, a single field name, or absent (`null`). */
  readonly customFields: Readonly<Record<string, string>> | string | null;
}

/** Names allowed in `custom_fields`: `custom_field_1` .. `custom_field_10`. */
export const CUSTOM_FIELD_NAME = /^custom_field_(?:[1-9]|10)$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function requiredText(
  obj: Record<string, unknown>,
  key: string,
  loc: Loc,
  issues: ValidationIssue[],
): string | undefined {
  const value = obj[key];
  if (value === undefined) {
    issues.push(missing([...loc, key]));
    return undefined;
  }
  if (typeof value !== 'string') {
    issues.push(stringType([...loc, key]));
    return undefined;
  }
  if (value.trim().length === 0) {
    issues.push(stringTooShort([...loc, key], 1));
    return undefined;
  }
  return value;
}

function optionalText(
  obj: Record<string, unknown>,
  key: string,
  loc: Loc,
  issues: ValidationIssue[],
): string | null | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    issues.push(stringType([...loc, key]));
    return undefined;
  }
  return value;
}

/** Why a string is not an e-mail address (email-validator's wording), or `undefined`. */
function emailProblem(value: string): string | undefined {
  const at = value.lastIndexOf('@');
  if (at === -1) return 'An email address must have an @-sign.';
  if (at === 0) return 'There must be something before the @-sign.';
  const domain = value.slice(at + 1);
  if (domain.length === 0) return 'There must be something after the @-sign.';
  if (/\s/.test(value)) return 'The email address contains invalid characters.';
  if (!/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(domain))
    return 'The part after the @-sign is not valid. It should have a period.';
  if (value.length > 254) return 'The email address is too long.';
  return undefined;
}

/** Validates a parsed JSON body; `undefined` (with issues pushed) when it is not valid. */
export function validateBookingBody(
  body: unknown,
  issues: ValidationIssue[],
): BookingRequest | undefined {
  const before = issues.length;
  if (body === undefined) {
    issues.push(missing(['body']));
    return undefined;
  }
  if (!isObject(body)) {
    issues.push(modelType(['body']));
    return undefined;
  }
  const rooms: RoomRequest[] = [];
  const detail = body.room_detail;
  if (detail === undefined) {
    issues.push(missing(['body', 'room_detail']));
  } else if (!Array.isArray(detail)) {
    issues.push({
      type: 'list_type',
      loc: ['body', 'room_detail'],
      msg: 'Input should be a valid list',
    });
  } else if (detail.length === 0) {
    issues.push(tooShortList(['body', 'room_detail'], 1, 0));
  } else {
    detail.forEach((item: unknown, i) => {
      const loc = ['body', 'room_detail', i];
      if (!isObject(item)) {
        issues.push(modelType(loc));
        return;
      }
      const firstName = requiredText(item, 'lead_first_name', loc, issues);
      const lastName = requiredText(item, 'lead_last_name', loc, issues);
      const notes = optionalText(item, 'notes', loc, issues);
      if (firstName !== undefined && lastName !== undefined && notes !== undefined) {
        rooms.push({ firstName, lastName, notes });
      }
    });
  }
  const phonePrefix = requiredText(body, 'phone_number_prefix', ['body'], issues);
  const phone = requiredText(body, 'phone_number', ['body'], issues);
  const email = optionalText(body, 'email', ['body'], issues);
  if (typeof email === 'string') {
    const problem = emailProblem(email);
    if (problem !== undefined) {
      issues.push({
        type: 'value_error',
        loc: ['body', 'email'],
        msg: `value is not a valid email address: ${problem}`,
        ctx: { reason: problem },
      });
    }
  }
  const customFields = validateCustomFields(body.custom_fields, issues);
  if (issues.length > before) return undefined;
  if (phonePrefix === undefined || phone === undefined || email === undefined) return undefined;
  return { rooms, phonePrefix, phone, email, customFields: customFields ?? null };
}

function validateCustomFields(
  value: unknown,
  issues: ValidationIssue[],
): Readonly<Record<string, string>> | string | null | undefined {
  const loc = ['body', 'custom_fields'];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    // The seed allows "a single string from the custom field names".
    if (CUSTOM_FIELD_NAME.test(value)) return value;
    issues.push({
      type: 'literal_error',
      loc,
      msg: "Input should be 'custom_field_1', 'custom_field_2', ... or 'custom_field_10'",
      ctx: { expected: 'custom_field_1 .. custom_field_10' },
    });
    return undefined;
  }
  if (!isObject(value)) {
    issues.push(modelType(loc));
    return undefined;
  }
  const out: Record<string, string> = {};
  let ok = true;
  for (const [key, v] of Object.entries(value)) {
    if (!CUSTOM_FIELD_NAME.test(key)) {
      issues.push({
        type: 'extra_forbidden',
        loc: [...loc, key],
        msg: 'Extra inputs are not permitted',
      });
      ok = false;
    } else if (typeof v !== 'string') {
      issues.push(stringType([...loc, key]));
      ok = false;
    } else {
      out[key] = v;
    }
  }
  return ok ? out : undefined;
}
