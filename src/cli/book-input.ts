/** A `bookRoom` input from `book`'s flags and `--input` file; the client's schema validates it. */
import { readFileSync } from 'node:fs';
import type { FieldIssue } from '../client';
import { usageError } from './cli-errors';

export interface BookFlags {
  readonly input?: string;
  readonly order?: string;
  readonly option?: string;
  readonly guest?: readonly string[];
  readonly phonePrefix?: string;
  readonly phone?: string;
  readonly email?: string;
  readonly maxIncrease?: string;
  readonly acceptPolicyChange?: boolean;
  readonly approvalTimeout?: string;
  readonly expectedNet?: string;
  readonly expectedCurrency?: string;
  readonly confirmationDeadline?: string;
  readonly checkin?: string;
  readonly supplier?: string;
  readonly pollInterval?: string;
  readonly customField?: readonly string[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `"Ada Lovelace"` → first `Ada`, last `Lovelace`; `"Lovelace, Ada King"` → last before the comma.
 * Without a comma the last word is the last name (`"Mary Ann Smith"` → `Mary Ann` / `Smith`).
 * `undefined` when the text does not hold two names.
 */
export function parseGuest(raw: string): { firstName: string; lastName: string } | undefined {
  const text = raw.trim().replace(/\s+/g, ' ');
  const comma = text.indexOf(',');
  if (comma >= 0) {
    const lastName = text.slice(0, comma).trim();
    const firstName = text.slice(comma + 1).trim();
    return firstName && lastName ? { firstName, lastName } : undefined;
  }
  const space = text.lastIndexOf(' ');
  return space > 0
    ? { firstName: text.slice(0, space), lastName: text.slice(space + 1) }
    : undefined;
}

function readInputFile(path: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(
      err instanceof SyntaxError
        ? `--input ${path}: not valid JSON (${err.message})`
        : `--input ${path}: cannot read it (${code ?? err})`,
    );
  }
  if (!isObject(parsed)) throw usageError(`--input ${path}: must hold one JSON object`);
  return parsed;
}

/** A number when it reads as one; else the text, for the schema to name the field. */
function numberOrText(raw: string): number | string {
  const n = Number(raw);
  return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
}

/**
 * The input as the flags and file describe it, unvalidated, and the problems the schema cannot see
 * (a guest without a last name, a custom field without `=`), for one error to list with its own.
 */
export function buildBookInput(flags: BookFlags): { input: Json; issues: FieldIssue[] } {
  const input: Json = flags.input ? readInputFile(flags.input) : {};
  const issues: FieldIssue[] = [];
  const sub = (key: string): Json => {
    const current = input[key];
    const obj = isObject(current) ? { ...current } : {};
    input[key] = obj;
    return obj;
  };
  if (flags.order !== undefined) input.orderId = flags.order;
  if (flags.option !== undefined) input.optionId = flags.option;
  if (flags.guest && flags.guest.length > 0) {
    input.rooms = flags.guest.map((raw, i) => {
      const guest = parseGuest(raw);
      if (guest) return guest;
      issues.push({
        field: `rooms.${i} (--guest)`,
        message: `"${raw}" needs a first and a last name, e.g. "Ada Lovelace"`,
      });
      // A stand-in, so the schema does not report this room a second time.
      return { firstName: raw, lastName: raw };
    });
  }
  if (flags.phonePrefix !== undefined) sub('contact').phonePrefix = flags.phonePrefix;
  if (flags.phone !== undefined) sub('contact').phone = flags.phone;
  if (flags.email !== undefined) sub('contact').email = flags.email;
  if (flags.maxIncrease !== undefined)
    sub('priceChangePolicy').maxIncreasePercent = numberOrText(flags.maxIncrease);
  if (flags.acceptPolicyChange) sub('priceChangePolicy').acceptPolicyChange = true;
  if (flags.approvalTimeout !== undefined)
    sub('priceChangePolicy').approvalTimeout = flags.approvalTimeout;
  if (flags.expectedNet !== undefined) sub('expectedPrice').net = flags.expectedNet;
  if (flags.expectedCurrency !== undefined) sub('expectedPrice').currency = flags.expectedCurrency;
  if (flags.confirmationDeadline !== undefined)
    input.confirmationDeadline = flags.confirmationDeadline;
  if (flags.checkin !== undefined) input.checkIn = flags.checkin;
  if (flags.supplier !== undefined) input.supplier = flags.supplier;
  if (flags.pollInterval !== undefined) {
    // One knob for people, "poll about this often": the interval is also the cap, so the backoff
    // cannot stretch it (the production default starts at 5 s and grows to 5 min).
    const polling = sub('polling');
    polling.initialInterval = flags.pollInterval;
    polling.maximumInterval ??= flags.pollInterval;
  }
  for (const pair of flags.customField ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      issues.push({
        field: 'customFields (--custom-field)',
        message: `"${pair}": use name=value, e.g. custom_field_1=VIP`,
      });
      continue;
    }
    sub('customFields')[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return { input, issues };
}

/** Input fields and the flag that sets each (the first that matches wins). */
const FLAG_OF_FIELD: readonly (readonly [string, string])[] = [
  ['orderId', '--order'],
  ['optionId', '--option'],
  ['rooms', '--guest'],
  ['contact.phonePrefix', '--phone-prefix'],
  ['contact.phone', '--phone'],
  ['contact.email', '--email'],
  ['contact', '--phone-prefix/--phone'],
  ['priceChangePolicy.maxIncreasePercent', '--max-increase'],
  ['priceChangePolicy.approvalTimeout', '--approval-timeout'],
  ['expectedPrice.net', '--expected-net'],
  ['expectedPrice.currency', '--expected-currency'],
  ['confirmationDeadline', '--confirmation-deadline'],
  ['checkIn', '--checkin'],
  ['supplier', '--supplier'],
  ['polling', '--poll-interval'],
  ['customFields', '--custom-field'],
];

/** Adds the flag to each field name and says "required" for a missing value. */
export function explainInputIssues(issues: readonly FieldIssue[]): FieldIssue[] {
  return issues.map((i) => {
    const flag = FLAG_OF_FIELD.find(([f]) => i.field === f || i.field.startsWith(`${f}.`))?.[1];
    const message = /received undefined/.test(i.message) ? 'required' : i.message;
    return { field: flag ? `${i.field} (${flag})` : i.field, message };
  });
}
