/**
 * Deterministic scenarios, chosen per room option. The scenario (and its parameter) travels in
 * the option id, so the simulator needs no per-test setup: pick a room, get a behaviour.
 *
 * Option id format (self-describing, URL-safe, no encoding needed):
 *
 * ```
 * opt_<scenario>_<param>_p<propertyId>_<checkin>_<checkout>_<occupancy>_<room>[_<tag>]
 * opt_confirm-after-polls_3_p1001_2026-06-01_2026-06-03_a2.a2c5c7_x_k3f9a1
 * ```
 *
 * - `param`: a non-negative integer, or `inf` (pending-long's "forever"); `0` when unused.
 * - `occupancy`: one `a<adults>[c<age>...]` per room, joined by `.` (`a2c5c7` = 2 adults and
 *   children aged 5 and 7); the number of rooms is the number of entries.
 * - `room`: `std` or `sup` (ordinary rooms), `x` (the room that carries a scenario).
 * - `tag`: optional, `[a-z0-9]{1,24}`; it only makes the id distinct. Per-option state (a
 *   sold-out room, the 503 count of price-check-5xx) belongs to the exact id, so
 *   `scenarioOptionId` tags each id it builds: every call gets a fresh option.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_PROPERTY_ID } from './catalogue';
import { addDays, dateProblem, isoDate, nightsBetween } from './dates';
import type { RoomCode } from './room-types';

/** The scenario names, in the order docs/simulator.md lists them. */
export const SCENARIO_NAMES = [
  'instant',
  'confirm-after-polls',
  'pending-long',
  'not-confirmed',
  'price-up',
  'price-down',
  'policy-change',
  'not-available',
  'sold-out',
  'price-check-5xx',
  'booking-5xx',
  'booking-lost',
  'booking-slow',
  'supplier-cancels',
  'cancel-202-resolves',
  'cancel-202-never',
] as const;

export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** One row of the scenario table (docs/simulator.md renders it). */
export interface ScenarioInfo {
  readonly name: ScenarioName;
  /** What the supplier does, call by call. */
  readonly description: string;
  /** The parameter, when the scenario has one. `default` may be `Infinity` (pending-long). */
  readonly param?: { readonly meaning: string; readonly default: number };
  /** How a person or a test picks it. */
  readonly selectedBy: string;
}

function selectedBy(name: ScenarioName, withParam: boolean): string {
  const call = withParam ? `scenarioOptionId('${name}', { param })` : `scenarioOptionId('${name}')`;
  return `the availability room named "Classic Room [scenario: ${name}]", or an option id built with ${call}`;
}

const row = (
  name: ScenarioName,
  description: string,
  param?: { meaning: string; default: number },
): ScenarioInfo =>
  param
    ? { name, description, param, selectedBy: selectedBy(name, true) }
    : { name, description, selectedBy: selectedBy(name, false) };

/** Every scenario, its behaviour, its parameter and how to select it. */
export const SCENARIOS: readonly ScenarioInfo[] = [
  row(
    'instant',
    'Price check AVAILABLE; booking 201 CONFIRMED; cancel 204. The ordinary rooms behave this way too.',
  ),
  row(
    'confirm-after-polls',
    'Booking 201 PROCESSING; retrieve shows PROCESSING, then WAITING_CONFIRMATION, then CONFIRMED on the N-th retrieve.',
    { meaning: 'N, the retrieve that first shows CONFIRMED', default: 3 },
  ),
  row(
    'pending-long',
    'Booking 201 PENDING; retrieve shows PENDING for N retrieves, then CONFIRMED.',
    {
      meaning: 'N, the number of retrieves that still show PENDING (default: forever)',
      default: Infinity,
    },
  ),
  row(
    'not-confirmed',
    'Booking 201 PROCESSING; the N-th retrieve (and every later one) shows NOT_CONFIRMED.',
    { meaning: 'N, the retrieve that first shows NOT_CONFIRMED', default: 2 },
  ),
  row(
    'price-up',
    'Price check PRICE CHANGE with the price raised by P percent; booking then 201 CONFIRMED at the new price.',
    { meaning: 'P, the increase in percent', default: 10 },
  ),
  row(
    'price-down',
    'Price check PRICE CHANGE with the price lowered by P percent; booking then 201 CONFIRMED at the new price.',
    { meaning: 'P, the decrease in percent (at most 90)', default: 10 },
  ),
  row(
    'policy-change',
    'Price check POLICY CHANGE with the unchanged price returned; booking then 201 CONFIRMED.',
  ),
  row('not-available', 'Price check NOT AVAILABLE, with price and booking_id null.'),
  row(
    'sold-out',
    'Price check AVAILABLE; booking 422 {"detail":"Room is no longer available"} and nothing is created; every later price check of the option answers NOT AVAILABLE.',
  ),
  row(
    'price-check-5xx',
    'Price check answers 503 for the first N calls of the option, then AVAILABLE; booking 201 CONFIRMED.',
    { meaning: 'N, the number of 503 answers', default: 2 },
  ),
  row('booking-5xx', 'Booking answers 500 and creates nothing (every time).'),
  row(
    'booking-lost',
    'Booking is committed (CONFIRMED, visible through retrieve and inspection), then the connection is destroyed before any answer is written.',
  ),
  row(
    'booking-slow',
    'Booking is committed (CONFIRMED) at once and its 201 answer is delayed by D milliseconds.',
    { meaning: 'D, the delay in milliseconds', default: 3000 },
  ),
  row(
    'supplier-cancels',
    'Booking 201 CONFIRMED; the N-th retrieve (and every later one) shows CANCELLED: the supplier cancelled it.',
    { meaning: 'N, the retrieve that first shows CANCELLED', default: 2 },
  ),
  row(
    'cancel-202-resolves',
    'Booking 201 CONFIRMED; cancel answers 202 {"status":"OK","message":null}; the N-th retrieve after the first cancel shows CANCELLED.',
    { meaning: 'N, the retrieve after the cancel that first shows CANCELLED', default: 2 },
  ),
  row(
    'cancel-202-never',
    'Booking 201 CONFIRMED; cancel answers 202 {"status":"OK","message":null} forever and the booking stays CONFIRMED.',
  ),
];

const BY_NAME = new Map<string, ScenarioInfo>(SCENARIOS.map((s) => [s.name, s]));

/** Whether `name` is a scenario name. */
export function isScenarioName(name: string): name is ScenarioName {
  return BY_NAME.has(name);
}

/** The built-in default parameter of a scenario (0 when it has none). */
export function defaultScenarioParam(name: ScenarioName): number {
  return BY_NAME.get(name)?.param?.default ?? 0;
}

/** Occupancy of one room. */
export interface Occupancy {
  readonly adults: number;
  readonly children: readonly number[];
}

/** Everything an option id says. */
export interface OptionSpec {
  readonly scenario: ScenarioName;
  /** The scenario parameter; `Infinity` for "forever". */
  readonly param: number;
  readonly propertyId: number;
  readonly checkin: string;
  readonly checkout: string;
  /** One entry per room. */
  readonly occupancy: readonly Occupancy[];
  readonly room: RoomCode;
  /** Distinguishes otherwise equal options (see the module comment). */
  readonly tag?: string;
}

/** Highest finite scenario parameter an option id may carry. */
export const MAX_SCENARIO_PARAM = 100_000_000;

function formatOccupancy(o: Occupancy): string {
  return `a${o.adults}${o.children.map((age) => `c${age}`).join('')}`;
}

/** The option id of a spec (see the module comment for the format). */
export function formatOptionId(spec: OptionSpec): string {
  const param = spec.param === Infinity ? 'inf' : String(spec.param);
  const occupancy = spec.occupancy.map(formatOccupancy).join('.');
  const tag = spec.tag === undefined ? '' : `_${spec.tag}`;
  return `opt_${spec.scenario}_${param}_p${spec.propertyId}_${spec.checkin}_${spec.checkout}_${occupancy}_${spec.room}${tag}`;
}

const OPTION_ID =
  /^opt_([a-z0-9-]{1,40})_(\d{1,9}|inf)_p(\d{1,9})_(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})_(a\d{1,2}(?:c\d{1,2})*(?:\.a\d{1,2}(?:c\d{1,2})*)*)_(std|sup|x)(?:_([a-z0-9]{1,24}))?$/;

/** Most rooms in one option (the seed gives no limit; this keeps option ids short). */
export const MAX_ROOMS = 8;
/** Adults per room, inclusive bounds. */
export const MIN_ADULTS = 1;
export const MAX_ADULTS = 9;
/** Children per room. */
export const MAX_CHILDREN = 6;
/** Child ages, inclusive (the seed: 0-17). */
export const MAX_CHILD_AGE = 17;

/** Checks one room's occupancy against the limits; a reason when it breaks one. */
export function occupancyProblem(o: Occupancy): string | undefined {
  if (o.adults < MIN_ADULTS || o.adults > MAX_ADULTS)
    return `adults must be between ${MIN_ADULTS} and ${MAX_ADULTS}`;
  if (o.children.length > MAX_CHILDREN) return `at most ${MAX_CHILDREN} children per room`;
  if (o.children.some((age) => age > MAX_CHILD_AGE))
    return `child ages must be between 0 and ${MAX_CHILD_AGE}`;
  return undefined;
}

/** Parses an option id; `undefined` when it is not one the simulator could have issued. */
export function parseOptionId(id: string): OptionSpec | undefined {
  const m = OPTION_ID.exec(id);
  if (!m) return undefined;
  const [, scenario, rawParam, rawProperty, checkin, checkout, rawOccupancy, room, tag] = m;
  if (
    scenario === undefined ||
    rawParam === undefined ||
    rawProperty === undefined ||
    checkin === undefined ||
    checkout === undefined ||
    rawOccupancy === undefined ||
    room === undefined ||
    !isScenarioName(scenario)
  ) {
    return undefined;
  }
  if (dateProblem(checkin) !== undefined || dateProblem(checkout) !== undefined) return undefined;
  if (nightsBetween(checkin, checkout) < 1) return undefined;
  const param = rawParam === 'inf' ? Infinity : Number(rawParam);
  if (param > MAX_SCENARIO_PARAM && param !== Infinity) return undefined;
  if (scenario === 'price-down' && param > 90) return undefined;
  const occupancy: Occupancy[] = rawOccupancy.split('.').map((part) => {
    const [adults, ...children] = part.slice(1).split('c');
    return { adults: Number(adults), children: children.map(Number) };
  });
  if (occupancy.length > MAX_ROOMS || occupancy.some((o) => occupancyProblem(o) !== undefined)) {
    return undefined;
  }
  return {
    scenario,
    param,
    propertyId: Number(rawProperty),
    checkin,
    checkout,
    occupancy,
    room: room as RoomCode,
    ...(tag === undefined ? {} : { tag }),
  };
}

/** Options of {@link scenarioOptionId}. */
export interface ScenarioOptionIdOptions {
  /** The scenario parameter (see {@link SCENARIOS}); `Infinity` means forever. @default the scenario's default */
  readonly param?: number;
  /** Number of rooms, each for 2 adults (ignored when `occupancy` is given). @default 1 */
  readonly rooms?: number;
  /** @default 1001 (an active Italian property) */
  readonly propertyId?: number;
  /** Check-in date `YYYY-MM-DD`. @default 30 days from today (UTC, by the local clock) */
  readonly checkin?: string;
  /** Check-out date `YYYY-MM-DD`. @default two nights after `checkin` */
  readonly checkout?: string;
  /** Occupancy per room, overriding `rooms`. @default `rooms` × 2 adults */
  readonly occupancy?: readonly Occupancy[];
  /**
   * The id's tag (`[a-z0-9]{1,24}`); `null` for none, which makes equal calls return equal ids
   * (and share per-option state such as sold-out). @default a tag unique to this call
   */
  readonly tag?: string | null;
}

/** Unique tags: a per-process random prefix and a counter (client-side; the server never draws). */
const TAG_PREFIX = randomBytes(3).toString('hex');
let tagCounter = 0;

function freshTag(): string {
  tagCounter += 1;
  return `${TAG_PREFIX}${tagCounter.toString(36)}`;
}

/**
 * Builds a valid option id for a scenario directly, with no availability call: the price check
 * accepts it as is. Throws on a parameter or occupancy the simulator would reject.
 *
 * @example scenarioOptionId('confirm-after-polls', { param: 2 })
 *   // 'opt_confirm-after-polls_2_p1001_2026-06-01_2026-06-03_a2_x_5d0c1e1'
 */
export function scenarioOptionId(
  scenario: ScenarioName,
  opts: ScenarioOptionIdOptions = {},
): string {
  if (!isScenarioName(scenario)) throw new RangeError(`unknown scenario ${String(scenario)}`);
  const checkin = opts.checkin ?? addDays(isoDate(Date.now()), 30);
  const checkout = opts.checkout ?? addDays(checkin, 2);
  const rooms = opts.rooms ?? 1;
  const occupancy =
    opts.occupancy ?? Array.from({ length: rooms }, () => ({ adults: 2, children: [] }));
  const spec: OptionSpec = {
    scenario,
    param: opts.param ?? defaultScenarioParam(scenario),
    propertyId: opts.propertyId ?? DEFAULT_PROPERTY_ID,
    checkin,
    checkout,
    occupancy,
    room: 'x',
    ...(opts.tag === null ? {} : { tag: opts.tag ?? freshTag() }),
  };
  if (!(Number.isInteger(spec.param) && spec.param >= 0) && spec.param !== Infinity) {
    throw new RangeError(`param must be a non-negative integer or Infinity, got ${spec.param}`);
  }
  if (!Number.isInteger(spec.propertyId) || spec.propertyId < 0) {
    throw new RangeError(`propertyId must be a non-negative integer, got ${spec.propertyId}`);
  }
  const id = formatOptionId(spec);
  if (parseOptionId(id) === undefined) {
    throw new RangeError(`the simulator would reject option id ${id}`);
  }
  return id;
}
