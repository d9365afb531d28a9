/**
 * Every date pattern of the product, in one file: the strict ones inputs are held to (zod's own,
 * so the zod-free fast path agrees with the contract), the shape a request's date must have
 * before its calendar is checked, and the lenient instant read from the supplier. Pure, zod-free:
 * workflow code imports it.
 */

/** `YYYY-MM-DD` by shape only; {@link DATE_RE} also holds the calendar. */
export const DATE_SHAPE_RE = /^\d{4}-\d{2}-\d{2}$/;

// zod 4.6.7's own patterns (`z.regexes.date`, `z.iso.datetime({ offset: true })`);
// test/shared/input-fast-path.test.ts fails if zod's differ.
const DATE = String.raw`(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))`;
/** A calendar date that exists, `YYYY-MM-DD`. */
export const DATE_RE = new RegExp(`^${DATE}$`);
/** An ISO 8601 instant with seconds and an offset (`Z` or `±hh:mm`), as inputs must give it. */
export const INSTANT_RE = new RegExp(
  String.raw`^${DATE}T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$`,
);

/**
 * An instant as a supplier may write it: seconds optional, the offset's colon optional. Read
 * leniently because a deadline we fail to read is a deadline we cannot guard.
 */
const SUPPLIER_INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Epoch ms of a supplier or order date: an ISO instant with an offset, or a date (read as the
 * START of that day, UTC: the earliest it can mean). Anything else is unknown.
 */
export function parseInstant(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  const iso = DATE_SHAPE_RE.test(v) ? `${v}T00:00:00Z` : SUPPLIER_INSTANT_RE.test(v) ? v : '';
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
}
