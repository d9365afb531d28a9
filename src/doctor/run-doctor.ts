/**
 * `hotel-booking doctor`: a read-only probe of the configured supplier environment against the
 * product's model (docs/doctor.md), and the opt-in test booking. Runs the checks of this folder
 * in order and returns one report; the CLI renders it (src/cli/commands/doctor-command.ts).
 */
import type { HotelApiConfig } from '../hotel-api/client';
import type { CustomFieldName } from '../hotel-api/booking';
import type { Room } from '../hotel-api/availability';
import type { Credentials } from '../hotel-api/signing';
import { checkAccess, checkRedirectsAndClock, checkRefusals } from './access-checks';
import type { AccountSettings } from './account-settings';
import { DEFAULT_ACCOUNT_SETTINGS } from './account-settings';
import type { LeftBehind } from './booking-checks';
import { runTestBooking } from './booking-checks';
import type { CheckName, CheckResult, Skipped, Stop } from './check-result';
import { BOOK_CHECKS, doctorExitCode, fail, inCheckOrder } from './check-result';
import type { DoctorExit } from './check-result';
import { latencyVerdict, rateLimitVerdict } from './load-verdicts';
import type { Search } from './read-checks';
import {
  checkArrayEncoding,
  checkAvailability,
  checkContentDetail,
  checkContentList,
  checkPriceCheck,
  checkValidationErrors,
  roomToPrice,
  sampleReads,
  staticListsResult,
} from './read-checks';
import { SupplierSession } from './supplier-session';

export interface DoctorOptions {
  /** The country whose content list is paged (ISO 3166-1 alpha-2). */
  readonly country: string;
  /** The property searched; the first of the content list when absent. */
  readonly propertyId?: number;
  readonly search: Search;
  /** Further calls per read endpoint, for latency percentiles. @default 3 */
  readonly samples?: number;
  /** A second key, of an account the supplier keeps inactive. */
  readonly inactive?: Credentials;
  /** The account's rate cap (SUPPLIER_MAX_CALLS_PER_SECOND), to compare with rate-limit headers. */
  readonly maxCallsPerSecond: number;
  /** Where the account's settings are set, for the advice. @default the `HOTEL_API_*` variables */
  readonly settings?: AccountSettings;
  /** The opt-in test booking; absent: nothing is booked. */
  readonly book?: {
    /** An option to book; else a room of the availability search. */
    readonly optionId?: string;
    readonly orderId: string;
    readonly orderIdField: CustomFieldName;
    readonly cancelPollMs?: number;
  };
}

export interface DoctorReport {
  /** The supplier's origin (never a key or secret). */
  readonly supplier: string;
  readonly checks: readonly CheckResult[];
  readonly skipped: readonly Skipped[];
  readonly stop?: Stop;
  /** A test booking the doctor could not see cancelled. */
  readonly leftBehind?: LeftBehind;
  readonly exitCode: DoctorExit;
}

const skip = (names: readonly CheckName[], reason: string): Skipped[] =>
  names.map((name) => ({ name, reason }));

/** The room a test booking takes: refundable and available if there is one. */
export function roomToBook(rooms: readonly Room[]): Room | undefined {
  const free = rooms.filter((r) => r.refundable && r.status.toUpperCase() === 'AVAILABLE');
  return free[0] ?? roomToPrice(rooms);
}

/**
 * A probe sent raw (outside the client) rejects when no answer arrives in the read timeout: the
 * check that sent it fails with that, and the other checks still run.
 */
export async function probe(
  name: CheckName,
  run: () => Promise<CheckResult | CheckResult[]>,
  readTimeout = DEFAULT_ACCOUNT_SETTINGS.timeouts.read,
): Promise<CheckResult[]> {
  try {
    const r = await run();
    return Array.isArray(r) ? r : [r];
  } catch (err) {
    const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return [
      fail(
        name,
        `the probe got no answer: ${why.slice(0, 160)}`,
        `calls like this one would fail the same way (see latency and ${readTimeout})`,
      ),
    ];
  }
}

interface Progress {
  readonly checks: CheckResult[];
  readonly skipped: Skipped[];
  rooms: Room[];
}

/** The raw probes: an invalid search, and array encoding over the first two `propertyIds`. */
async function probeChecks(
  session: SupplierSession,
  o: DoctorOptions,
  p: Progress,
  propertyIds: readonly [number, ...number[]],
) {
  const [propertyId] = propertyIds;
  const readTimeout = session.settings.timeouts.read;
  p.checks.push(
    ...(await probe(
      'validation-errors',
      () => checkValidationErrors(session, propertyId, o.search),
      readTimeout,
    )),
  );
  const other = propertyIds.find((id) => id !== propertyId);
  if (other === undefined) {
    p.skipped.push(...skip(['array-encoding'], 'a second property id is needed'));
    return;
  }
  p.checks.push(
    ...(await probe(
      'array-encoding',
      () => checkArrayEncoding(session, [propertyId, other], o.search),
      readTimeout,
    )),
  );
}

/** Content, availability, price check, validation and array probes, then latency samples. */
async function readChecks(session: SupplierSession, o: DoctorOptions, p: Progress) {
  const list = await checkContentList(session, o.country);
  p.checks.push(list.result);
  const propertyId = o.propertyId ?? list.ids[0];
  const searchChecks: CheckName[] = ['content-detail', 'availability', 'date-formats'];
  if (propertyId === undefined) {
    p.skipped.push(
      ...skip(
        [...searchChecks, 'price-check', 'validation-errors', 'array-encoding'],
        `no property to search: the content list of ${o.country} gave none; pass --property`,
      ),
    );
    return;
  }
  p.checks.push(await checkContentDetail(session, propertyId));
  const availability = await checkAvailability(session, propertyId, o.search);
  p.checks.push(...availability.results);
  p.rooms = availability.rooms;
  const room = roomToPrice(p.rooms);
  if (room === undefined) p.skipped.push(...skip(['price-check'], 'availability listed no room'));
  else p.checks.push(await checkPriceCheck(session, room));
  await probeChecks(session, o, p, [propertyId, ...list.ids]);
  const q = { ...o.search, propertyIds: [propertyId] };
  await sampleReads(session, o.samples ?? 3, [
    () => session.client.staticReferenceList({ language: 'en' }),
    () => session.client.getProperty({ hotelId: propertyId }),
    () => session.client.availability(q),
    ...(room === undefined ? [] : [() => session.client.priceCheck({ optionId: room.id })]),
  ]);
}

async function bookingChecks(session: SupplierSession, o: DoctorOptions, p: Progress) {
  const book = o.book;
  if (book === undefined) {
    p.skipped.push(...skip(BOOK_CHECKS, 'no test booking asked for (--book)'));
    return undefined;
  }
  const room = book.optionId === undefined ? roomToBook(p.rooms) : undefined;
  const optionId = book.optionId ?? room?.id;
  if (optionId === undefined) {
    p.skipped.push(...skip(BOOK_CHECKS, 'no room to book: availability listed none'));
    return undefined;
  }
  const outcome = await runTestBooking(session, {
    optionId,
    rooms: room?.number_of_rooms ?? o.search.occupancy.length,
    orderId: book.orderId,
    orderIdField: book.orderIdField,
    ...(book.optionId === undefined ? o.search : {}),
    ...(book.cancelPollMs === undefined ? {} : { cancelPollMs: book.cancelPollMs }),
  });
  p.checks.push(...outcome.results);
  const ran = new Set(outcome.results.map((r) => r.name));
  const notRun = BOOK_CHECKS.filter((n) => !ran.has(n));
  p.skipped.push(...skip(notRun, 'an earlier booking step failed'));
  return outcome.leftBehind;
}

/** `latency` and `rate-limit`, over every call the session made. */
function loadChecks(session: SupplierSession, maxCallsPerSecond: number): CheckResult[] {
  return [
    latencyVerdict(session.timings(), session.settings),
    rateLimitVerdict({
      headers: session.headers,
      maxCallsPerSecond,
      rateLimited: session.rateLimited,
      capSetting: session.settings.maxCallsPerSecond,
    }),
  ];
}

/** Runs every check against the supplier `config` points at. */
export async function runDoctor(config: HotelApiConfig, o: DoctorOptions): Promise<DoctorReport> {
  const settings = o.settings ?? DEFAULT_ACCOUNT_SETTINGS;
  const session = new SupplierSession(config, settings);
  const readTimeout = settings.timeouts.read;
  const p: Progress = { checks: [], skipped: [], rooms: [] };
  const supplier = new URL(config.baseUrl).origin;
  const done = (stop?: Stop, leftBehind?: LeftBehind): DoctorReport => ({
    supplier,
    checks: inCheckOrder(p.checks),
    skipped: p.skipped,
    ...(stop === undefined ? {} : { stop }),
    ...(leftBehind === undefined ? {} : { leftBehind }),
    exitCode: doctorExitCode({ checks: p.checks, stop }),
  });
  try {
    const access = await checkAccess(session);
    p.checks.push(...access.results);
    if (access.stop?.kind === 'unreachable') return done(access.stop);
    // The clock explains a refusal too, so it runs before stopping for credentials.
    p.checks.push(
      ...(await probe('redirects', () => checkRedirectsAndClock(session), readTimeout)),
    );
    if (access.stop !== undefined) return done(access.stop);
    p.checks.push(
      ...(await probe('wrong-secret', () => checkRefusals(session, o.inactive), readTimeout)),
    );
    if (o.inactive === undefined) {
      p.skipped.push(...skip(['inactive-account'], 'no inactive account given (--inactive-key)'));
    }
    if (access.staticLists !== undefined) p.checks.push(staticListsResult(access.staticLists));
    await readChecks(session, o, p);
    const leftBehind = await bookingChecks(session, o, p);
    p.checks.push(...loadChecks(session, o.maxCallsPerSecond));
    return done(undefined, leftBehind);
  } finally {
    await session.close();
  }
}
