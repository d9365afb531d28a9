/** `doctor` on one account (docs/doctor.md): its checks, in order, into one report. */
import type { HotelApiConfig } from '../hotel-api/client';
import type { Room } from '../hotel-api/availability';
import type { Credentials } from '../hotel-api/signing';
import { checkAccess, checkRedirectsAndClock, checkRefusals } from './access-checks';
import { type AccountSettings, DEFAULT_ACCOUNT_SETTINGS } from './account-settings';
import { type LeftBehind, type TestBooking, runTestBooking } from './booking-checks';
import type { CheckName, CheckResult, DoctorExit, Skipped, Stop } from './check-result';
import { BOOK_CHECKS, doctorExitCode, fail, inCheckOrder } from './check-result';
import { latencyVerdict, rateLimitVerdict } from './load-verdicts';
import {
  type Search,
  checkArrayEncoding,
  checkAvailability,
  checkContentDetail,
  checkContentList,
  checkPriceCheck,
  checkValidationErrors,
  staticListsResult,
} from './read-checks';
import { SupplierSession, attempt } from './supplier-session';

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
  /** The opt-in test booking (no option: a room of the search); absent: nothing is booked. */
  readonly book?: Pick<TestBooking, 'orderId' | 'orderIdField' | 'cancelPollMs'> &
    Partial<Pick<TestBooking, 'optionId'>>;
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

/** The room the doctor prices: the first one the supplier says is available. */
function roomToPrice(rooms: readonly Room[]): Room | undefined {
  return rooms.find((r) => r.status.toUpperCase() === 'AVAILABLE') ?? rooms[0];
}

/** The room a test booking takes: refundable and available if there is one. */
export function roomToBook(rooms: readonly Room[]): Room | undefined {
  const free = rooms.filter((r) => r.refundable && r.status.toUpperCase() === 'AVAILABLE');
  return free[0] ?? roomToPrice(rooms);
}

/** A raw probe that got no answer in the read timeout fails its check; the others still run. */
export async function probe(
  name: CheckName,
  run: () => Promise<CheckResult | CheckResult[]>,
  readTimeout = DEFAULT_ACCOUNT_SETTINGS.timeouts.read,
): Promise<CheckResult[]> {
  try {
    return [await run()].flat();
  } catch (err) {
    const why = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 160);
    const breaks = `calls like this one would fail the same way (see latency and ${readTimeout})`;
    return [fail(name, `the probe got no answer: ${why}`, breaks)];
  }
}

/** The checks run so far and those that did not run. */
class Progress {
  readonly checks: CheckResult[] = [];
  readonly skipped: Skipped[] = [];
  rooms: Room[] = [];
  constructor(readonly session: SupplierSession) {}

  skip(names: readonly CheckName[], reason: string): void {
    this.skipped.push(...names.map((name) => ({ name, reason })));
  }

  async probe(name: CheckName, run: () => Promise<CheckResult | CheckResult[]>): Promise<void> {
    this.checks.push(...(await probe(name, run, this.session.settings.timeouts.read)));
  }
}

/** Content, availability, price check, validation and array probes, then latency samples. */
async function readChecks(o: DoctorOptions, p: Progress) {
  const { session } = p;
  const list = await checkContentList(session, o.country);
  p.checks.push(list.result);
  const propertyId = o.propertyId ?? list.ids[0];
  if (propertyId === undefined) {
    const searchChecks: CheckName[] = ['content-detail', 'availability', 'date-formats'];
    p.skip(
      [...searchChecks, 'price-check', 'validation-errors', 'array-encoding'],
      `no property to search: the content list of ${o.country} gave none; pass --property`,
    );
    return;
  }
  p.checks.push(await checkContentDetail(session, propertyId));
  const availability = await checkAvailability(session, propertyId, o.search);
  p.checks.push(...availability.results);
  p.rooms = availability.rooms;
  const room = roomToPrice(p.rooms);
  if (room === undefined) p.skip(['price-check'], 'availability listed no room');
  else p.checks.push(await checkPriceCheck(session, room));
  await p.probe('validation-errors', () => checkValidationErrors(session, propertyId, o.search));
  const other = list.ids.find((id) => id !== propertyId);
  if (other === undefined) p.skip(['array-encoding'], 'a second property id is needed');
  else {
    await p.probe('array-encoding', () =>
      checkArrayEncoding(session, [propertyId, other], o.search),
    );
  }
  const q = { ...o.search, propertyIds: [propertyId] };
  // More calls of each read endpoint, so that latency has a few samples (failures are counted).
  const calls: (() => Promise<unknown>)[] = [
    () => session.client.staticReferenceList({ language: 'en' }),
    () => session.client.getProperty({ hotelId: propertyId }),
    () => session.client.availability(q),
    ...(room === undefined ? [] : [() => session.client.priceCheck({ optionId: room.id })]),
  ];
  for (let i = 0; i < (o.samples ?? 3); i++) for (const call of calls) await attempt(call);
}

async function bookingChecks(o: DoctorOptions, p: Progress) {
  const book = o.book;
  if (book === undefined) {
    p.skip(BOOK_CHECKS, 'no test booking asked for (--book)');
    return undefined;
  }
  const room = book.optionId === undefined ? roomToBook(p.rooms) : undefined;
  const optionId = book.optionId ?? room?.id;
  if (optionId === undefined) {
    p.skip(BOOK_CHECKS, 'no room to book: availability listed none');
    return undefined;
  }
  const outcome = await runTestBooking(p.session, {
    ...book,
    optionId,
    rooms: room?.number_of_rooms ?? o.search.occupancy.length,
    ...(book.optionId === undefined ? o.search : {}),
  });
  p.checks.push(...outcome.results);
  const notRun = BOOK_CHECKS.filter((n) => !outcome.results.some((r) => r.name === n));
  p.skip(notRun, 'an earlier booking step failed');
  return outcome.leftBehind;
}

export async function runDoctor(config: HotelApiConfig, o: DoctorOptions): Promise<DoctorReport> {
  const session = new SupplierSession(config, o.settings ?? DEFAULT_ACCOUNT_SETTINGS);
  const p = new Progress(session);
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
    await p.probe('redirects', () => checkRedirectsAndClock(session));
    if (access.stop !== undefined) return done(access.stop);
    await p.probe('wrong-secret', () => checkRefusals(session, o.inactive));
    if (o.inactive === undefined) {
      p.skip(['inactive-account'], 'no inactive account given (--inactive-key)');
    }
    if (access.staticLists !== undefined) p.checks.push(staticListsResult(access.staticLists));
    await readChecks(o, p);
    const leftBehind = await bookingChecks(o, p);
    // `latency` and `rate-limit`, over every call the session made.
    p.checks.push(
      latencyVerdict(session.timings(), session.settings),
      rateLimitVerdict({
        headers: session.headers,
        maxCallsPerSecond: o.maxCallsPerSecond,
        rateLimited: session.rateLimited,
        capSetting: session.settings.maxCallsPerSecond,
      }),
    );
    return done(undefined, leftBehind);
  } finally {
    await session.close();
  }
}
