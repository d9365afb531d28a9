/**
 * The read endpoints through the product's client and schemas, and the probes around them:
 * content paging, the dates the product reads, a 422 provoked on purpose, array encodings.
 */
import { z } from 'zod';
import type { AvailabilityResponse, Room } from '../hotel-api/availability';
import {
  AvailabilityResponse as AvailabilitySchema,
  prepareAvailability,
} from '../hotel-api/availability';
import { encodeQuery } from '../hotel-api/client';
import type { PropertyDetail, PropertyListResponse } from '../hotel-api/content';
import {
  PropertyDetail as PropertyDetailSchema,
  PropertyListResponse as PropertyListSchema,
  pageCount,
  preparePropertyDetail,
  preparePropertyList,
} from '../hotel-api/content';
import type { PreparedRequest } from '../hotel-api/endpoint';
import { isHotelApiError } from '../hotel-api/errors';
import type { PriceCheckResponse } from '../hotel-api/price-check';
import {
  PriceCheckResponse as PriceCheckSchema,
  preparePriceCheck,
} from '../hotel-api/price-check';
import type { StaticReferenceListResponse } from '../hotel-api/static-content';
import { StaticReferenceListResponse as StaticListsSchema } from '../hotel-api/static-content';
import { asRefusal } from './access-checks';
import type { ArrayProbe, DateField, PageSeen, ReadOutcome } from './answer-verdicts';
import {
  arrayEncodingVerdict,
  availabilityDatesVerdict,
  pagingVerdict,
  schemaVerdict,
  unknownFieldsInfo,
  validationVerdict,
} from './answer-verdicts';
import type { CheckResult } from './check-result';
import { fail, warn } from './check-result';
import type { SupplierSession } from './supplier-session';
import { unknownFields } from './unknown-fields';

/** The stay and rooms the doctor searches for. */
export interface Search {
  readonly checkin: string;
  readonly checkout: string;
  /** One entry per room, `2` or `2-5,7`. */
  readonly occupancy: readonly string[];
}

interface Read<T> {
  readonly outcome: ReadOutcome<T>;
  /** Fields of the answer the schema does not name. */
  readonly unknown: string[];
  /** The raw answer's JSON, when the schema refused it. */
  readonly raw?: unknown;
}

/**
 * One call through the client. When its answer fails the schema, the same request is sent raw so
 * that the report can list the fields the supplier sent instead (a renamed field shows there).
 */
async function readThrough<T>(
  session: SupplierSession,
  prepared: PreparedRequest<T>,
  schema: z.ZodType,
  call: () => Promise<T>,
): Promise<Read<T>> {
  try {
    const value = await call();
    return { outcome: { ok: true, value }, unknown: unknownFields(schema, value) };
  } catch (err) {
    if (!isHotelApiError(err)) throw err;
    if (err.code === 'CONTRACT' && err.statusCode !== undefined && err.statusCode < 300) {
      const raw = await session
        .raw({ method: prepared.method, path: prepared.path, query: prepared.query })
        .catch(() => ({ json: undefined }));
      return {
        outcome: { ok: false, error: err },
        unknown: unknownFields(schema, raw.json),
        raw: raw.json,
      };
    }
    return { outcome: { ok: false, error: err }, unknown: [] };
  }
}

/** `static-lists`, from the answer the access check already had. */
export function staticListsResult(outcome: ReadOutcome<StaticReferenceListResponse>): CheckResult {
  return schemaVerdict({
    name: 'static-lists',
    outcome,
    unknown: outcome.ok ? unknownFields(StaticListsSchema, outcome.value) : [],
    summary: (v) =>
      Object.entries(v)
        .filter(([, items]) => Array.isArray(items))
        .map(([k, items]) => `${k} ${(items as unknown[]).length}`)
        .join(', '),
    breaks:
      'amenity and category names cannot be shown; content sync stores properties without them',
  });
}

const CONTENT_BREAKS =
  'content sync (the local catalogue) and property names in search results fail; bookings themselves do not depend on it';

/**
 * `content-list`: page 1 through the client, then the last page and the one after it, against
 * `total`. Returns the property ids of page 1 for the checks that need some.
 */
export async function checkContentList(
  session: SupplierSession,
  country: string,
): Promise<{ result: CheckResult; ids: number[] }> {
  const list = (page: number) => {
    const q = { countryCode: country, page };
    return readThrough<PropertyListResponse>(
      session,
      preparePropertyList(q),
      PropertyListSchema,
      () => session.client.listProperties(q),
    );
  };
  const first = await list(1);
  if (!first.outcome.ok) {
    return {
      result: schemaVerdict({
        name: 'content-list',
        ...first,
        summary: () => '',
        breaks: CONTENT_BREAKS,
      }),
      ids: looseListIds(first.raw),
    };
  }
  const { total, properties } = first.outcome.value;
  const pages: PageSeen[] = [{ page: 1, count: properties.length }];
  const last = pageCount(total);
  for (const page of last > 1 ? [last, last + 1] : [2]) {
    const read = await list(page);
    if (!read.outcome.ok) {
      return {
        result: schemaVerdict({
          name: 'content-list',
          ...read,
          summary: () => '',
          breaks: CONTENT_BREAKS,
        }),
        ids: properties.map((p) => p.id),
      };
    }
    pages.push({ page, count: read.outcome.value.properties.length });
  }
  return {
    result: pagingVerdict({ country, total, pages, info: unknownFieldsInfo(first.unknown) }),
    ids: properties.map((p) => p.id),
  };
}

/** `content-detail` of one property. */
export async function checkContentDetail(
  session: SupplierSession,
  hotelId: number,
): Promise<CheckResult> {
  const q = { hotelId };
  const read = await readThrough<PropertyDetail>(
    session,
    preparePropertyDetail(q),
    PropertyDetailSchema,
    () => session.client.getProperty(q),
  );
  return schemaVerdict({
    name: 'content-detail',
    ...read,
    summary: (p) => `property ${p.id} "${p.name}"${p.stars == null ? '' : `, ${p.stars} stars`}`,
    breaks: CONTENT_BREAKS,
  });
}

/** `availability` and `date-formats` for one property; returns its rooms. */
export async function checkAvailability(
  session: SupplierSession,
  propertyId: number,
  search: Search,
): Promise<{ results: CheckResult[]; rooms: Room[] }> {
  const q = { ...search, propertyIds: [propertyId] };
  const read = await readThrough<AvailabilityResponse>(
    session,
    prepareAvailability(q),
    AvailabilitySchema,
    () => session.client.availability(q),
  );
  const rooms = read.outcome.ok ? read.outcome.value.properties.flatMap((p) => p.rooms) : [];
  const where = `property ${propertyId}, ${search.checkin} → ${search.checkout}, occupancy ${search.occupancy.join(' + ')}`;
  const result = schemaVerdict({
    name: 'availability',
    ...read,
    summary: (v) =>
      `${rooms.length} room option(s) at ${where}${v.warnings.length > 0 ? `; warnings: ${v.warnings.join(', ')}` : ''}`,
    breaks: 'no room can be searched, so none can be offered or booked',
  });
  if (result.verdict === 'ok' && rooms.length === 0) {
    return {
      results: [
        warn(
          'availability',
          `${result.evidence}: nothing to price-check`,
          'nothing in the product; pass --property, --checkin and --checkout of a stay with availability',
          result.info,
        ),
      ],
      rooms,
    };
  }
  const refundable = rooms.filter((r) => r.refundable);
  const dates: DateField[] = [];
  rooms.forEach((r, i) => {
    if (r.refundable && r.cancel_penalties !== undefined && r.cancel_penalties !== null) {
      dates.push({ at: `rooms[${i}].cancel_penalties`, value: r.cancel_penalties });
    }
  });
  const datesResult = read.outcome.ok
    ? availabilityDatesVerdict({ refundableRooms: refundable.length, fields: dates })
    : undefined;
  return { results: datesResult === undefined ? [result] : [result, datesResult], rooms };
}

/** The room the doctor prices: the first one the supplier says is available. */
export function roomToPrice(rooms: readonly Room[]): Room | undefined {
  return rooms.find((r) => r.status.toUpperCase() === 'AVAILABLE') ?? rooms[0];
}

/** `price-check` of a room option from availability. */
export async function checkPriceCheck(session: SupplierSession, room: Room): Promise<CheckResult> {
  const q = { optionId: room.id };
  const read = await readThrough<PriceCheckResponse>(
    session,
    preparePriceCheck(q),
    PriceCheckSchema,
    () => session.client.priceCheck(q),
  );
  const result = schemaVerdict({
    name: 'price-check',
    ...read,
    summary: (v) =>
      `${v.status}${v.price === null ? '' : ` at ${v.price.net} ${v.price.currency}`}, booking_id ${v.booking_id === null ? 'null' : 'given'} (option "${room.room_name}")`,
    breaks: 'no option can be price-checked, so none can be booked',
  });
  if (!read.outcome.ok || result.verdict !== 'ok') return result;
  const v = read.outcome.value;
  if (v.status !== 'NOT AVAILABLE' && v.booking_id === null) {
    return fail(
      'price-check',
      `${v.status} without a booking_id: ${result.evidence}`,
      "POST /booking needs the price check's booking_id: nothing can be booked",
      result.info,
    );
  }
  if (v.status === 'NOT AVAILABLE') {
    return warn(
      'price-check',
      `${result.evidence}: the option sold out between search and price check`,
      'nothing in the product; run again, or pass other dates',
      result.info,
    );
  }
  return result;
}

/** `validation-errors`: an availability search with an invalid check-in, sent raw. */
export async function checkValidationErrors(
  session: SupplierSession,
  propertyId: number,
  search: Search,
): Promise<CheckResult> {
  const answer = await session.raw({
    method: 'GET',
    path: '/properties/availability',
    query: [
      ['checkin', 'not-a-date'],
      ['checkout', search.checkout],
      ['property_id', String(propertyId)],
      ...search.occupancy.map((o) => ['occupancy', o] as const),
    ],
  });
  return validationVerdict({
    ...asRefusal(session, answer, '/properties/availability'),
    field: 'checkin',
  });
}

/**
 * Only what the array probe reads, loosely: a renamed or retyped field elsewhere is the
 * `availability` check's finding, not this one's.
 */
const CoverageSchema = z.looseObject({
  properties: z
    .array(
      z.looseObject({
        property_id: z.unknown(),
        rooms: z.array(z.looseObject({ number_of_rooms: z.unknown() })).catch([]),
      }),
    )
    .catch([]),
  warnings: z.array(z.unknown()).catch([]),
});

/** What one availability answer covered. */
export function arrayProbe(statusCode: number, json: unknown): ArrayProbe {
  if (statusCode < 200 || statusCode >= 300) return { statusCode, covered: [] };
  const parsed = CoverageSchema.safeParse(json);
  if (!parsed.success) return { statusCode, covered: [] };
  const covered = [
    ...parsed.data.properties.map((p) => p.property_id),
    ...parsed.data.warnings,
  ].map(String);
  const rooms = parsed.data.properties.flatMap((p) => p.rooms)[0]?.number_of_rooms;
  return { statusCode, covered, ...(typeof rooms === 'number' ? { roomsPerOption: rooms } : {}) };
}

/** Property ids of a content list answer the schema refused, read loosely. */
export function looseListIds(json: unknown): number[] {
  const parsed = z
    .looseObject({ properties: z.array(z.looseObject({ id: z.unknown() })) })
    .safeParse(json);
  if (!parsed.success) return [];
  return parsed.data.properties.map((p) => p.id).filter((id) => Number.isInteger(id)) as number[];
}

/**
 * `array-encoding`: two properties and two rooms, as repeated keys (what the client sends) and
 * comma-separated (the other convention; occupancy stays repeated, its commas separate ages).
 */
export async function checkArrayEncoding(
  session: SupplierSession,
  propertyIds: readonly [number, number],
  search: Search,
): Promise<CheckResult> {
  const ids = propertyIds.map(String);
  const occupancy = [search.occupancy[0] ?? '2', search.occupancy[0] ?? '2'];
  const dates = [
    ['checkin', search.checkin],
    ['checkout', search.checkout],
  ] as const;
  const repeated = await session.raw({
    method: 'GET',
    path: '/properties/availability',
    query: [
      ...dates,
      ...ids.map((id) => ['property_id', id] as const),
      ...occupancy.map((o) => ['occupancy', o] as const),
    ],
  });
  const comma = await session.raw({
    method: 'GET',
    path: '/properties/availability',
    query: `${encodeQuery(dates)}&property_id=${ids.join(',')}&${encodeQuery(occupancy.map((o) => ['occupancy', o] as const))}`,
  });
  return arrayEncodingVerdict({
    propertyIds: ids,
    rooms: occupancy.length,
    repeated: arrayProbe(repeated.statusCode, repeated.json),
    comma: arrayProbe(comma.statusCode, comma.json),
  });
}

/** More calls of each read endpoint, so that latency has a few samples (failures are counted). */
export async function sampleReads(
  session: SupplierSession,
  samples: number,
  calls: readonly (() => Promise<unknown>)[],
): Promise<void> {
  for (let i = 0; i < samples; i++) {
    for (const call of calls) {
      await call().catch((err: unknown) => {
        if (!isHotelApiError(err)) throw err;
      });
    }
  }
}
