/** Calendar dates as the API writes them: `YYYY-MM-DD`, always UTC. */

const DAY_MS = 86_400_000;

/** The `YYYY-MM-DD` of an epoch-milliseconds instant, in UTC. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Epoch milliseconds of midnight UTC of a valid `YYYY-MM-DD`. */
export function dateToMs(date: string): number {
  return Date.UTC(
    Number(date.slice(0, 4)),
    Number(date.slice(5, 7)) - 1,
    Number(date.slice(8, 10)),
  );
}

/** `date` moved by `days` (may be negative). */
export function addDays(date: string, days: number): string {
  return isoDate(dateToMs(date) + days * DAY_MS);
}

/** Whole nights between two valid dates; negative when `checkout` is earlier. */
export function nightsBetween(checkin: string, checkout: string): number {
  return Math.round((dateToMs(checkout) - dateToMs(checkin)) / DAY_MS);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Why `raw` is not a `YYYY-MM-DD` date, worded like pydantic's date parser (so the 422 bodies
 * read like the real FastAPI service's), or `undefined` when it is a valid date.
 */
export function dateProblem(raw: string): string | undefined {
  const isDigits = (from: number, to: number): boolean => /^\d+$/.test(raw.slice(from, to));
  if (raw.length < 10) return 'input is too short';
  if (!isDigits(0, 4)) return 'invalid character in year';
  if (raw[4] !== '-') return 'invalid date separator, expected `-`';
  if (!isDigits(5, 7)) return 'invalid character in month';
  if (raw[7] !== '-') return 'invalid date separator, expected `-`';
  if (!isDigits(8, 10)) return 'invalid character in day';
  if (raw.length > 10) return 'unexpected extra characters at the end of the input';
  const year = Number(raw.slice(0, 4));
  const month = Number(raw.slice(5, 7));
  const day = Number(raw.slice(8, 10));
  if (month < 1 || month > 12) return 'month value is outside expected range of 1-12';
  if (day < 1 || day > daysInMonth(year, month)) return 'day value is outside expected range';
  return undefined;
}
