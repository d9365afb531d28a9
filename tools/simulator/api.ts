/**
 * The `/api/v1` endpoints. Each endpoint first validates its input (collecting FastAPI-style
 * issues) and, when valid, returns the function that answers for an authenticated company. The
 * split lets the server report a missing `authorization` header together with every other
 * validation problem, as FastAPI does, without running the endpoint.
 */
import type { CompanyAccount } from './auth';
import type { StoredBooking } from './bookings';
import type { BookingStore } from './bookings';
import type { BookingRequest } from './booking-request';
import { validateBookingBody } from './booking-request';
import type { PropertyBase } from './catalogue';
import {
  PAGE_SIZE,
  findProperty,
  propertiesOf,
  propertyDetail,
  propertySummary,
} from './catalogue';
import { nightsBetween } from './dates';
import type { EndpointName } from './endpoints';
import type { ParsedBody } from './http-io';
import type { ResolvedOptions } from './options';
import {
  adjustCents,
  apiPrice,
  availabilityRoom,
  formatAmount,
  freeCancellationUntil,
  optionNetCents,
  roomName,
  treatmentOf,
  CURRENCY,
} from './pricing';
import type { Prng } from './prng';
import { referenceListJson } from './reference-lists';
import type { Language } from './reference-lists';
import { ROOM_TYPES } from './room-types';
import type { Occupancy, OptionSpec, ScenarioName } from './scenarios';
import type { RoomCode } from './room-types';
import {
  MAX_ROOMS,
  SCENARIO_NAMES,
  defaultScenarioParam,
  occupancyProblem,
  parseOptionId,
} from './scenarios';
import type { ValidationIssue } from './validation';
import {
  language,
  lastValue,
  missing,
  modelType,
  parseInteger,
  requiredDate,
  requiredInteger,
  requiredString,
  stringTooLong,
  stringTooShort,
  tooLong,
  valueError,
} from './validation';

/** The response side of one request. */
export interface Exchange {
  /** Answers with a JSON body (already serialized). */
  json(status: number, body: string, headers?: Readonly<Record<string, string>>): void;
  /** Answers with no body (204). */
  empty(status: number): void;
  /** Destroys the connection without answering. */
  drop(): void;
}

/** What the endpoints need from the simulator. */
export interface ApiContext {
  now(): number;
  readonly store: BookingStore;
  readonly prng: Prng;
  readonly options: ResolvedOptions;
  isPropertyActive(p: PropertyBase): boolean;
  sleep(ms: number): Promise<void>;
}

/** The request as the endpoints see it. */
export interface RequestInput {
  readonly params: URLSearchParams;
  /** The raw `{hotel_id}` path segment of the detail route. */
  readonly hotelId?: string;
  readonly body?: ParsedBody;
}

export type Runner = (company: CompanyAccount, ex: Exchange) => void | Promise<void>;

/** Validates; returns the answering function, or `undefined` after pushing issues. */
export type Endpoint = (input: RequestInput, issues: ValidationIssue[]) => Runner | undefined;

/** Most property ids per availability search (the seed's limit). */
export const MAX_PROPERTY_IDS = 200;

/** Cached availability fragments (one per property and search) before the cache is dropped. */
const AVAILABILITY_CACHE_LIMIT = 5_000;

const detail = (message: string): string => JSON.stringify({ detail: message });

const PROPERTY_NOT_FOUND = detail('Property not found or inactive');
/** Booking with an unknown, expired or foreign price-check token. */
export const INVALID_TOKEN = detail('Invalid or expired option_id');
const INVALID_OPTION = detail('Invalid option_id');
const SOLD_OUT = detail('Room is no longer available');
const SERVICE_UNAVAILABLE = detail('Service Unavailable');
const INTERNAL_ERROR = detail('Internal Server Error');

const OCCUPANCY = /^(\d{1,2})(?:-(\d{1,2}(?:,\d{1,2})*))?$/;

function parseOccupancy(
  raw: string,
  index: number,
  issues: ValidationIssue[],
): Occupancy | undefined {
  const loc = ['query', 'occupancy', index];
  const m = OCCUPANCY.exec(raw);
  if (!m) {
    issues.push(
      valueError(
        loc,
        `invalid occupancy '${raw}': expected the number of adults, then optionally '-' and comma-separated child ages (e.g. 2 or 2-5,7)`,
      ),
    );
    return undefined;
  }
  const occupancy: Occupancy = {
    adults: Number(m[1]),
    children: m[2] === undefined ? [] : m[2].split(',').map(Number),
  };
  const problem = occupancyProblem(occupancy);
  if (problem !== undefined) {
    issues.push(valueError(loc, `invalid occupancy '${raw}': ${problem}`));
    return undefined;
  }
  return occupancy;
}

function languageCode(params: URLSearchParams, issues: ValidationIssue[]): Language | undefined {
  return language(params, 'language_code', issues, false);
}

/** Builds the endpoints over a simulator context. */
export function createEndpoints(ctx: ApiContext): Readonly<Record<EndpointName, Endpoint>> {
  const scenarioParam = (s: ScenarioName) =>
    ctx.options.scenarioParams[s] ?? defaultScenarioParam(s);

  /** Availability JSON per property and search (see the availability endpoint). */
  const availabilityCache = new Map<string, string>();
  const propertyAvailability = (
    property: PropertyBase,
    checkin: string,
    checkout: string,
    occupancy: readonly Occupancy[],
  ) => {
    const spec = (scenario: ScenarioName, param: number, room: RoomCode): OptionSpec => ({
      scenario,
      param,
      propertyId: property.id,
      checkin,
      checkout,
      occupancy,
      room,
    });
    const rooms = [
      availabilityRoom(spec('instant', 0, 'std'), property),
      availabilityRoom(spec('instant', 0, 'sup'), property),
    ];
    if (ctx.options.scenarioRooms) {
      for (const s of SCENARIO_NAMES) {
        rooms.push(availabilityRoom(spec(s, scenarioParam(s), 'x'), property));
      }
    }
    return { property_id: String(property.id), status: 'AVAILABLE', rooms };
  };

  const availability: Endpoint = ({ params }, issues) => {
    const checkin = requiredDate(params, 'checkin', issues);
    const checkout = requiredDate(params, 'checkout', issues);
    const rawIds = params.getAll('property_id');
    const ids: number[] = [];
    if (rawIds.length === 0) issues.push(missing(['query', 'property_id']));
    else if (rawIds.length > MAX_PROPERTY_IDS)
      issues.push(tooLong(['query', 'property_id'], MAX_PROPERTY_IDS, rawIds.length));
    else
      rawIds.forEach((raw, i) => {
        const id = parseInteger(raw, ['query', 'property_id', i], issues);
        if (id !== undefined) ids.push(id);
      });
    const rawOccupancy = params.getAll('occupancy');
    const occupancy: Occupancy[] = [];
    if (rawOccupancy.length === 0) issues.push(missing(['query', 'occupancy']));
    else if (rawOccupancy.length > MAX_ROOMS)
      issues.push(tooLong(['query', 'occupancy'], MAX_ROOMS, rawOccupancy.length));
    else
      rawOccupancy.forEach((raw, i) => {
        const o = parseOccupancy(raw, i, issues);
        if (o !== undefined) occupancy.push(o);
      });
    if (checkin !== undefined && checkout !== undefined && nightsBetween(checkin, checkout) < 1) {
      issues.push(valueError(['query', 'checkout'], 'checkout must be after checkin'));
    }
    if (issues.length > 0 || checkin === undefined || checkout === undefined) return undefined;
    const occupancyKey = rawOccupancy.join('|');
    return (_company, ex) => {
      const parts: string[] = [];
      const warnings: string[] = [];
      for (const id of new Set(ids)) {
        const property = findProperty(id);
        if (property === undefined || !ctx.isPropertyActive(property)) {
          warnings.push(String(id));
          continue;
        }
        // The rooms of a property depend only on the search: cache their JSON (the hot path).
        const key = `${id}|${checkin}|${checkout}|${occupancyKey}`;
        let part = availabilityCache.get(key);
        if (part === undefined) {
          part = JSON.stringify(propertyAvailability(property, checkin, checkout, occupancy));
          if (availabilityCache.size >= AVAILABILITY_CACHE_LIMIT) availabilityCache.clear();
          availabilityCache.set(key, part);
        }
        parts.push(part);
      }
      ex.json(200, `{"properties":[${parts.join(',')}],"warnings":${JSON.stringify(warnings)}}`);
    };
  };

  const contentList: Endpoint = ({ params }, issues) => {
    const countryCode = requiredString(params, 'country_code', issues);
    if (countryCode !== undefined) {
      const loc = ['query', 'country_code'];
      if (countryCode.length < 2) issues.push(stringTooShort(loc, 2));
      else if (countryCode.length > 2) issues.push(stringTooLong(loc, 2));
      else if (!/^[A-Z]{2}$/.test(countryCode))
        issues.push({
          type: 'string_pattern_mismatch',
          loc,
          msg: "String should match pattern '^[A-Z]{2}$'",
          ctx: { pattern: '^[A-Z]{2}$' },
        });
    }
    const lang = languageCode(params, issues);
    const rawPage = lastValue(params, 'page');
    let page = 1;
    if (rawPage !== undefined) {
      const n = parseInteger(rawPage, ['query', 'page'], issues);
      if (n !== undefined && n < 1) {
        issues.push({
          type: 'greater_than_equal',
          loc: ['query', 'page'],
          msg: 'Input should be greater than or equal to 1',
          ctx: { ge: 1 },
        });
      } else if (n !== undefined) page = n;
    }
    if (issues.length > 0 || countryCode === undefined || lang === undefined) return undefined;
    return (_company, ex) => {
      const active = propertiesOf(countryCode).filter((p) => ctx.isPropertyActive(p));
      const start = (page - 1) * PAGE_SIZE;
      const items = start < active.length ? active.slice(start, start + PAGE_SIZE) : [];
      ex.json(
        200,
        JSON.stringify({
          total: active.length,
          page,
          page_size: PAGE_SIZE,
          properties: items.map((p) => propertySummary(p, lang)),
        }),
      );
    };
  };

  const contentDetail: Endpoint = ({ params, hotelId }, issues) => {
    const id =
      hotelId === undefined ? undefined : parseInteger(hotelId, ['path', 'hotel_id'], issues);
    const lang = languageCode(params, issues);
    if (issues.length > 0 || id === undefined || lang === undefined) return undefined;
    return (_company, ex) => {
      const property = findProperty(id);
      if (property === undefined || !ctx.isPropertyActive(property)) {
        ex.json(404, PROPERTY_NOT_FOUND);
        return;
      }
      ex.json(200, JSON.stringify(propertyDetail(property, lang)));
    };
  };

  const referenceList: Endpoint = ({ params }, issues) => {
    const lang = language(params, 'language', issues, true);
    if (lang === undefined) return undefined;
    return (_company, ex) => ex.json(200, referenceListJson(lang));
  };

  const priceCheck: Endpoint = ({ params }, issues) => {
    const optionId = requiredString(params, 'option_id', issues);
    if (optionId === undefined) return undefined;
    return (company, ex) => {
      const spec = parseOptionId(optionId);
      if (spec === undefined) {
        ex.json(422, INVALID_OPTION);
        return;
      }
      const notAvailable = JSON.stringify({
        status: 'NOT AVAILABLE',
        price: null,
        booking_id: null,
      });
      const property = findProperty(spec.propertyId);
      if (property === undefined || !ctx.isPropertyActive(property)) {
        ex.json(200, notAvailable);
        return;
      }
      const { store } = ctx;
      if (spec.scenario === 'price-check-5xx' && store.countPriceCheck(optionId) <= spec.param) {
        ex.json(503, SERVICE_UNAVAILABLE);
        return;
      }
      if (
        spec.scenario === 'not-available' ||
        (spec.scenario === 'sold-out' && store.isSoldOut(optionId))
      ) {
        ex.json(200, notAvailable);
        return;
      }
      let net = optionNetCents(spec, property);
      let status = 'AVAILABLE';
      let price: ReturnType<typeof apiPrice> | null = null;
      if (spec.scenario === 'price-up' || spec.scenario === 'price-down') {
        net = adjustCents(net, spec.scenario === 'price-up' ? spec.param : -spec.param);
        status = 'PRICE CHANGE';
        price = apiPrice(net);
      } else if (spec.scenario === 'policy-change') {
        status = 'POLICY CHANGE';
        price = apiPrice(net);
      }
      const token = store.issueToken(
        { optionId, spec, companyKey: company.key, netCents: net },
        ctx.now(),
        ctx.options.tokenTtlMs,
        ctx.prng,
      );
      ex.json(200, JSON.stringify({ status, price, booking_id: token.token }));
    };
  };

  const booking: Endpoint = ({ params, body }, issues) => {
    const optionId = requiredString(params, 'option_id', issues);
    let request: BookingRequest | undefined;
    if (body?.kind === 'not-json') issues.push(modelType(['body']));
    else request = validateBookingBody(body?.kind === 'json' ? body.value : undefined, issues);
    if (optionId === undefined || request === undefined) return undefined;
    const valid = request;
    return async (company, ex) => {
      const { store } = ctx;
      const token = store.findToken(optionId, company.key, ctx.now());
      if (token === undefined) {
        ex.json(422, INVALID_TOKEN);
        return;
      }
      const rooms = token.spec.occupancy.length;
      if (valid.rooms.length !== rooms) {
        ex.json(
          422,
          detail(
            `room_detail must have exactly ${rooms} entr${rooms === 1 ? 'y' : 'ies'} (one per room of the option), got ${valid.rooms.length}`,
          ),
        );
        return;
      }
      switch (token.spec.scenario) {
        case 'sold-out':
          store.markSoldOut(token.optionId);
          ex.json(422, SOLD_OUT);
          return;
        case 'booking-5xx':
          ex.json(500, INTERNAL_ERROR);
          return;
        default:
          break;
      }
      const b = store.create(token, valid, ctx.now());
      const answer = JSON.stringify({ status: b.status, booking_id: b.bookingId });
      if (token.spec.scenario === 'booking-lost') {
        b.answer = 'lost';
        ex.drop();
        return;
      }
      if (token.spec.scenario === 'booking-slow') {
        b.answer = 'delayed';
        await ctx.sleep(token.spec.param);
      }
      ex.json(201, answer);
    };
  };

  const cancel: Endpoint = ({ params }, issues) => {
    const id = requiredInteger(params, 'booking_id', issues);
    if (id === undefined) return undefined;
    return (company, ex) => {
      const outcome = ctx.store.cancel(id, company.key);
      switch (outcome.kind) {
        case 'cancelled':
          ex.empty(204);
          return;
        case 'accepted':
          ex.json(202, JSON.stringify({ status: 'OK', message: null }));
          return;
        case 'already-cancelled':
          ex.json(
            202,
            JSON.stringify({ status: 'OK', message: `Booking ${id} is already cancelled` }),
          );
          return;
        case 'not-found':
          ex.json(
            202,
            JSON.stringify({
              status: 'NOT AVAILABLE',
              message: `Booking with id ${id} could not be found`,
            }),
          );
          return;
      }
    };
  };

  const retrieve: Endpoint = ({ params }, issues) => {
    const id = requiredInteger(params, 'booking_id', issues);
    if (id === undefined) return undefined;
    return (company, ex) => {
      const b = ctx.store.retrieve(id, company.key);
      if (b === undefined) {
        const message = `Booking with id ${id} could not be found`;
        // The seed names `status` and `message`; its sample shows the text under `detail`.
        ex.json(404, JSON.stringify({ status: 'NOT_FOUND', message, detail: message }));
        return;
      }
      ex.json(200, JSON.stringify(retrieveRecord(b)));
    };
  };

  return {
    availability,
    'content-list': contentList,
    'content-detail': contentDetail,
    'reference-list': referenceList,
    'price-check': priceCheck,
    booking,
    cancel,
    retrieve,
  };
}

function paymentStatus(b: StoredBooking): string {
  if (b.status === 'CONFIRMED') return 'PAID';
  if (b.status === 'CANCELLED') return ROOM_TYPES[b.spec.room].refundable ? 'REFUNDED' : 'PAID';
  if (b.status === 'NOT_CONFIRMED') return 'NOT_CHARGED';
  return 'PENDING';
}

/** The retrieve record of a booking. */
export function retrieveRecord(b: StoredBooking): Record<string, unknown> {
  const { spec, request } = b;
  const type = ROOM_TYPES[spec.room];
  return {
    booking_id: b.bookingId,
    status: b.status,
    guest_contact_number: `${request.phonePrefix} ${request.phone}`,
    email: request.email ?? '',
    check_in: spec.checkin,
    check_out: spec.checkout,
    cancel_policy: type.refundable,
    penalty_date: freeCancellationUntil(spec),
    price: {
      total_amount: formatAmount(b.netCents),
      currency: CURRENCY,
      payment_status: paymentStatus(b),
    },
    package: false,
    created_at: new Date(b.createdAtMs).toISOString(),
    custom_fields: request.customFields,
    rooms: request.rooms.map((room, i) => ({
      room_id: b.bookingId * 100 + i + 1,
      lead_name: room.firstName,
      lead_last_name: room.lastName,
      special_requests: room.notes ?? '',
      room_name: roomName(spec),
      bed_type: type.bedGroups[0]?.description ?? '',
      treatments: [treatmentOf(spec)],
      number_of_adults: spec.occupancy[i]?.adults ?? 0,
      child_ages: spec.occupancy[i]?.children ?? [],
    })),
  };
}
