/** Verdicts on what the supplier answers: schemas, paging, dates, 422 bodies, array encodings. Pure. */
import { CONTENT_PAGE_SIZE, contentPageCount } from '../catalogue/sync-contract';
import type { HotelApiError } from '../hotel-api/errors';
import { parseInstant } from '../shared/dates';
import type { Refusal } from './access-verdicts';
import { type CheckName, type CheckResult, resultsOf } from './check-result';

/** A read endpoint's call through the client: its parsed answer or its classified failure. */
export type ReadOutcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: HotelApiError };

const MAX_LISTED = 8;

function list(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

/** The info line naming fields the product does not read. */
export function unknownFieldsInfo(fields: readonly string[]): string[] {
  return fields.length === 0 ? [] : [`fields the product does not read: ${list(fields)}`];
}

/** `properties[].rooms[].room_name: expected string`: one line per field, whatever the index. */
export function issueLine(issue: {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}): string {
  const path = issue.path
    .map((k) => (typeof k === 'number' ? '[]' : `.${String(k)}`))
    .join('')
    .replace(/^\./, '');
  return `${path || '(root)'}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

/** A read endpoint's verdict: `ok` when the product's schema parsed the answer, else `fail`. */
export function schemaVerdict<T>(input: {
  readonly name: CheckName;
  readonly outcome: ReadOutcome<T>;
  readonly summary: (value: T) => string;
  /** What the product loses when this endpoint's answers cannot be read. */
  readonly breaks: string;
  readonly unknown: readonly string[];
}): CheckResult {
  const { outcome } = input;
  const { ok, fail } = resultsOf(input.name);
  const info = unknownFieldsInfo(input.unknown);
  if (outcome.ok) {
    return ok(`parsed by the product's schema: ${input.summary(outcome.value)}`, info);
  }
  const e = outcome.error;
  if (e.code === 'CONTRACT' && e.issues !== undefined && e.issues.length > 0) {
    const issues = [...new Set(e.issues.map(issueLine))];
    return fail(
      `the answer does not match the product's schema: ${list(issues)}`,
      input.breaks,
      info,
    );
  }
  return fail(`${e.code}: ${e.message}`, input.breaks, info);
}

/** One page of the content list as seen. */
export interface PageSeen {
  readonly page: number;
  readonly count: number;
}

/** `content-list`: `total` counts properties, pages hold 200, the page after the last is empty. */
export function pagingVerdict(input: {
  readonly country: string;
  readonly total: number;
  readonly pages: readonly PageSeen[];
  readonly info?: readonly string[];
}): CheckResult {
  const { ok, warn, fail } = resultsOf('content-list');
  const { total, pages, country } = input;
  const expected = (page: number) =>
    Math.max(0, Math.min(CONTENT_PAGE_SIZE, total - (page - 1) * CONTENT_PAGE_SIZE));
  const pageCount = contentPageCount(total);
  const seen = pages.map((p) => {
    const wrong = p.count === expected(p.page) ? '' : ` (expected ${expected(p.page)})`;
    return `page ${p.page} has ${p.count}${wrong}`;
  });
  const evidence = `${country}: total ${total} → ${pageCount} page(s) of ${CONTENT_PAGE_SIZE}; ${seen.join(', ')}`;
  if (pages.some((p) => p.count !== expected(p.page))) {
    return fail(
      evidence,
      `content sync reads total as a number of properties (pages = total / ${CONTENT_PAGE_SIZE}): it would miss properties or ask for pages that do not exist`,
      input.info,
    );
  }
  if (total === 0) {
    return warn(
      `${evidence}: no active property to check with`,
      'nothing in the product; pass --country with a country the account covers',
      input.info,
    );
  }
  return ok(evidence, input.info);
}

/** A date-like value the product reads, where it was found. */
export interface DateField {
  /** e.g. `properties[0].rooms[1].cancel_penalties`. */
  readonly at: string;
  readonly value: unknown;
}

const showValue = (v: unknown) => JSON.stringify(v)?.slice(0, 60) ?? String(v);

/**
 * `date-formats`: refundable rooms' `cancel_penalties`, which order systems pass on to the guard.
 * Unreadable is a warning: the guard still has retrieve's `penalty_date` (checked by `--book`).
 */
export function availabilityDatesVerdict(input: {
  readonly refundableRooms: number;
  readonly fields: readonly DateField[];
}): CheckResult {
  const { ok, warn } = resultsOf('date-formats');
  const bad = input.fields.filter((f) => parseInstant(f.value) === undefined);
  const missing = input.refundableRooms - input.fields.length;
  if (bad.length > 0) {
    return warn(
      `cancel_penalties the product cannot read as a date or an ISO 8601 instant with an offset: ${list(bad.map((f) => `${f.at} = ${showValue(f.value)}`))}`,
      "the free-cancellation deadline an order system passes from availability is ignored; the guard falls back on retrieve's penalty_date (run --book to check it)",
    );
  }
  if (missing > 0) {
    return warn(
      `${missing} of ${input.refundableRooms} refundable room(s) came without cancel_penalties`,
      "order systems cannot pass a free-cancellation deadline for them; the guard relies on retrieve's penalty_date",
    );
  }
  if (input.fields.length === 0) {
    return ok('no refundable room in the answer, so no cancel_penalties to read');
  }
  return ok(
    `${input.fields.length} cancel_penalties read as instants, e.g. ${showValue(input.fields[0]?.value)}`,
  );
}

/** `validation-errors`: an invalid `field` must come back a 422 read as VALIDATION, naming it. */
export function validationVerdict(answer: Refusal & { readonly field: string }): CheckResult {
  const { ok, warn, fail } = resultsOf('validation-errors');
  const e = answer.classified;
  if (e === undefined) {
    return warn(
      `an invalid ${answer.field} was accepted (${answer.statusCode}): the supplier does not validate it`,
      'nothing in the product (its own validation rejects bad input before sending)',
    );
  }
  if (e.code !== 'VALIDATION') {
    return fail(
      `an invalid ${answer.field} answered ${answer.statusCode}, classified ${e.code} (${e.ambiguous ? 'ambiguous' : 'not ambiguous'}); the client expects a 422`,
      e.ambiguous
        ? 'a booking the supplier rejects would count as possibly made: bookRoom waits for an operator (NEEDS_RECONCILIATION) instead of failing cleanly'
        : 'a rejected booking would be reported under the wrong cause',
    );
  }
  const errors = e.fieldErrors ?? [];
  const named = errors.filter((f) => f.field !== '');
  if (named.some((f) => f.field.includes(answer.field))) {
    return ok(
      `422 with detail as a list of {type, loc, msg}: classified VALIDATION, naming ${list(named.map((f) => f.field))}`,
    );
  }
  if (errors.length > 0 && named.length === 0) {
    return warn(
      `422 whose detail is a string (${JSON.stringify(errors[0]?.message.slice(0, 80))}): classified VALIDATION (refused, nothing processed), but without a field`,
      "nothing is booked twice, but a rejected booking's error cannot say which field: operators read the supplier's text",
    );
  }
  return warn(
    `422 classified VALIDATION, but its body names ${named.length > 0 ? list(named.map((f) => f.field)) : 'no field and no reason'}, not ${answer.field}`,
    "a rejected booking's error will not say what was wrong",
  );
}

/** One availability search with two property ids and two rooms, as seen. */
export interface ArrayProbe {
  readonly statusCode: number;
  /** Property ids the answer covered (in `properties` or `warnings`). */
  readonly covered: readonly string[];
  /** Rooms per option in the answer (`number_of_rooms`), when it listed any. */
  readonly roomsPerOption?: number;
}

/** `array-encoding`: arrays sent as repeated keys (as the client does) must reach the supplier whole. */
export function arrayEncodingVerdict(input: {
  readonly propertyIds: readonly string[];
  readonly rooms: number;
  readonly repeated: ArrayProbe;
  readonly comma: ArrayProbe;
}): CheckResult {
  const { ok, fail } = resultsOf('array-encoding');
  const { propertyIds, repeated, comma } = input;
  const all = (p: ArrayProbe) =>
    p.statusCode >= 200 && p.statusCode < 300 && propertyIds.every((id) => p.covered.includes(id));
  const describe = (p: ArrayProbe) =>
    p.statusCode < 200 || p.statusCode >= 300
      ? `answered ${p.statusCode}`
      : `covered ${p.covered.length === 0 ? 'no property' : p.covered.join(', ')}${p.roomsPerOption === undefined ? '' : `, options for ${p.roomsPerOption} room(s)`}`;
  const evidence = `asked for properties ${propertyIds.join(', ')} and ${input.rooms} rooms: repeated keys ${describe(repeated)}; comma-separated ${describe(comma)}`;
  const roomsLost =
    repeated.roomsPerOption !== undefined && repeated.roomsPerOption !== input.rooms;
  if (all(repeated) && !roomsLost) return ok(evidence);
  return fail(
    evidence,
    all(comma)
      ? 'the supplier reads comma-separated arrays only, and the client sends repeated keys: searches over several properties lose all but one, multi-room searches price one room'
      : 'array parameters do not reach the supplier whole: searches over several properties or rooms answer for fewer',
  );
}
