/** The `doctor` command's flags, validated into {@link DoctorOptions}, every problem named. Pure. */
import { AvailabilityQuery } from '../hotel-api/availability';
import type { CustomFieldName } from '../hotel-api/booking';
import type { Credentials } from '../hotel-api/signing';
import type { FieldIssue } from '../shared/booking-values';
import type { DoctorOptions } from './run-doctor';

export interface DoctorFlags {
  readonly country?: string;
  readonly property?: string;
  readonly checkin?: string;
  readonly checkout?: string;
  readonly occupancy?: readonly string[];
  readonly samples?: string;
  readonly book?: boolean;
  readonly option?: string;
  readonly orderId?: string;
}

/** How far ahead the default stay starts, days: far enough to be bookable and free to cancel. */
export const DEFAULT_DAYS_AHEAD = 60;
export const DEFAULT_NIGHTS = 2;
/** @default 3 further calls per read endpoint */
export const DEFAULT_SAMPLES = 3;
const MAX_SAMPLES = 20;

/** `isoDay` plus `days`; an unreadable day is returned as it is, for the schema to name. */
function addDays(isoDay: string, days: number): string {
  const ms = Date.parse(`${isoDay}T00:00:00Z`);
  return Number.isNaN(ms) ? isoDay : new Date(ms + days * 86_400_000).toISOString().slice(0, 10);
}

function positiveInt(raw: string | undefined, field: string, issues: FieldIssue[]) {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    issues.push({ field, message: `must be a positive integer, got ${JSON.stringify(raw)}` });
    return undefined;
  }
  return Number(raw);
}

function search(flags: DoctorFlags, today: string, issues: FieldIssue[]) {
  const checkin = flags.checkin ?? addDays(today, DEFAULT_DAYS_AHEAD);
  const checkout = flags.checkout ?? addDays(checkin, DEFAULT_NIGHTS);
  const occupancy = flags.occupancy ?? ['2'];
  const parsed = AvailabilityQuery.safeParse({ checkin, checkout, property_id: [1], occupancy });
  for (const i of parsed.error?.issues ?? []) {
    issues.push({ field: `--${String(i.path[0] ?? 'checkin')}`, message: i.message });
  }
  return { checkin, checkout, occupancy };
}

/** The options of `runDoctor`, or every problem with the flags. */
export function doctorOptions(input: {
  readonly flags: DoctorFlags;
  /** `YYYY-MM-DD`, for the default stay. */
  readonly today: string;
  readonly orderIdField: CustomFieldName;
  readonly maxCallsPerSecond: number;
  readonly inactive?: Credentials;
  /** For the default order id. */
  readonly nowMs: number;
}): { options?: DoctorOptions; issues: FieldIssue[] } {
  const { flags } = input;
  const issues: FieldIssue[] = [];
  const country = flags.country ?? 'IT';
  if (!/^[A-Z]{2}$/.test(country)) {
    issues.push({
      field: '--country',
      message: 'must be two capital letters (ISO 3166-1), e.g. IT',
    });
  }
  const propertyId = positiveInt(flags.property, '--property', issues);
  const samples = positiveInt(flags.samples, '--samples', issues) ?? DEFAULT_SAMPLES;
  if (samples > MAX_SAMPLES) issues.push({ field: '--samples', message: `at most ${MAX_SAMPLES}` });
  const s = search(flags, input.today, issues);
  const bookable =
    flags.option !== undefined || (propertyId !== undefined && flags.checkin !== undefined);
  if (flags.book === true && !bookable) {
    issues.push({
      field: '--book',
      message: 'needs --property and --checkin, or --option: the stay to book on purpose',
    });
  }
  if (flags.book !== true && (flags.option !== undefined || flags.orderId !== undefined)) {
    issues.push({
      field: flags.option !== undefined ? '--option' : '--order-id',
      message: 'only with --book',
    });
  }
  if (issues.length > 0) return { issues };
  const book = flags.book === true && {
    ...(flags.option === undefined ? {} : { optionId: flags.option }),
    orderId: flags.orderId ?? `doctor-${input.nowMs.toString(36)}`,
    orderIdField: input.orderIdField,
  };
  const options: DoctorOptions = {
    country,
    ...(propertyId === undefined ? {} : { propertyId }),
    search: s,
    samples,
    maxCallsPerSecond: input.maxCallsPerSecond,
    ...(input.inactive === undefined ? {} : { inactive: input.inactive }),
    ...(book && { book }),
  };
  return { options, issues };
}
