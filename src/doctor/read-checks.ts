/** The read endpoints through the product's client and schemas, and the raw probes around them. */
import { z } from 'zod';
import { type Room, AvailabilityResponse, prepareAvailability } from '../hotel-api/availability';
import { encodeQuery } from '../hotel-api/client';
import {
  PropertyDetail,
  PropertyListResponse,
  preparePropertyDetail,
  preparePropertyList,
} from '../hotel-api/content';
import type { PreparedRequest } from '../hotel-api/endpoint';
import type { RawRequest } from '../hotel-api/raw-request';
import { PriceCheckResponse, preparePriceCheck } from '../hotel-api/price-check';
import { StaticReferenceListResponse } from '../hotel-api/static-content';
import { contentPageCount } from '../catalogue/sync-contract';
import { asRefusal } from './access-checks';
import {
  type ArrayProbe,
  type DateField,
  type PageSeen,
  type ReadOutcome,
  arrayEncodingVerdict,
  availabilityDatesVerdict,
  pagingVerdict,
  schemaVerdict,
  unknownFieldsInfo,
  validationVerdict,
} from './answer-verdicts';
import { type CheckResult, warn, resultsOf } from './check-result';
import { type SupplierSession, attempt } from './supplier-session';
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
  const outcome = await attempt(call);
  if (outcome.ok) return { outcome, unknown: unknownFields(schema, outcome.value) };
  const err = outcome.error;
  if (err.code !== 'CONTRACT' || err.statusCode === undefined || err.statusCode >= 300) {
    return { outcome, unknown: [] };
  }
  const { method, path, query } = prepared;
  const raw = await session.raw({ method, path, query }).catch(() => ({ json: undefined }));
  return { outcome, unknown: unknownFields(schema, raw.json), raw: raw.json };
}

/** `static-lists`, from the answer the access check already had. */
export function staticListsResult(outcome: ReadOutcome<StaticReferenceListResponse>): CheckResult {
  return schemaVerdict({
    name: 'static-lists',
    outcome,
    unknown: outcome.ok ? unknownFields(StaticReferenceListResponse, outcome.value) : [],
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

/** `content-list`: page 1, the last page and the one after it, against `total`; page 1's ids. */
export async function checkContentList(
  session: SupplierSession,
  country: string,
): Promise<{ result: CheckResult; ids: number[] }> {
  const list = (page: number) => {
    const q = { countryCode: country, page };
    return readThrough(session, preparePropertyList(q), PropertyListResponse, () =>
      session.client.listProperties(q),
    );
  };
  const failed = (read: Read<PropertyListResponse>) =>
    schemaVerdict({ name: 'content-list', ...read, summary: () => '', breaks: CONTENT_BREAKS });
  const first = await list(1);
  if (!first.outcome.ok) return { result: failed(first), ids: looseListIds(first.raw) };
  const { total, properties } = first.outcome.value;
  const ids = properties.map((p) => p.id);
  const pages: PageSeen[] = [{ page: 1, count: properties.length }];
  const last = contentPageCount(total);
  for (const page of last > 1 ? [last, last + 1] : [2]) {
    const read = await list(page);
    if (!read.outcome.ok) return { result: failed(read), ids };
    pages.push({ page, count: read.outcome.value.properties.length });
  }
  const info = unknownFieldsInfo(first.unknown);
  return { result: pagingVerdict({ country, total, pages, info }), ids };
}

export async function checkContentDetail(
  session: SupplierSession,
  hotelId: number,
): Promise<CheckResult> {
  const q = { hotelId };
  const read = await readThrough(session, preparePropertyDetail(q), PropertyDetail, () =>
    session.client.getProperty(q),
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
  const read = await readThrough(session, prepareAvailability(q), AvailabilityResponse, () =>
    session.client.availability(q),
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
    const breaks =
      'nothing in the product; pass --property, --checkin and --checkout of a stay with availability';
    const evidence = `${result.evidence}: nothing to price-check`;
    return { results: [warn('availability', evidence, breaks, result.info)], rooms };
  }
  if (!read.outcome.ok) return { results: [result], rooms };
  const fields: DateField[] = rooms.flatMap((r, i) =>
    r.refundable && r.cancel_penalties != null
      ? [{ at: `rooms[${i}].cancel_penalties`, value: r.cancel_penalties }]
      : [],
  );
  const refundableRooms = rooms.filter((r) => r.refundable).length;
  return { results: [result, availabilityDatesVerdict({ refundableRooms, fields })], rooms };
}

/** `price-check` of a room option from availability. */
export async function checkPriceCheck(session: SupplierSession, room: Room): Promise<CheckResult> {
  const { warn, fail } = resultsOf('price-check');
  const q = { optionId: room.id };
  const read = await readThrough(session, preparePriceCheck(q), PriceCheckResponse, () =>
    session.client.priceCheck(q),
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
      `${v.status} without a booking_id: ${result.evidence}`,
      "POST /booking needs the price check's booking_id: nothing can be booked",
      result.info,
    );
  }
  if (v.status === 'NOT AVAILABLE') {
    return warn(
      `${result.evidence}: the option sold out between search and price check`,
      'nothing in the product; run again, or pass other dates',
      result.info,
    );
  }
  return result;
}

const SEARCH_PATH = '/properties/availability';
const searchRaw = (session: SupplierSession, query: RawRequest['query']) =>
  session.raw({ method: 'GET', path: SEARCH_PATH, query });

/** `validation-errors`: an availability search with an invalid check-in, sent raw. */
export async function checkValidationErrors(
  session: SupplierSession,
  propertyId: number,
  search: Search,
): Promise<CheckResult> {
  const answer = await searchRaw(session, [
    ['checkin', 'not-a-date'],
    ['checkout', search.checkout],
    ['property_id', String(propertyId)],
    ...search.occupancy.map((o) => ['occupancy', o] as const),
  ]);
  return validationVerdict({ ...asRefusal(session, answer, SEARCH_PATH), field: 'checkin' });
}

/** Only what the array probe reads, loosely: a renamed field is `availability`'s finding. */
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
  const { properties, warnings } = parsed.data;
  const covered = [...properties.map((p) => p.property_id), ...warnings].map(String);
  const rooms = properties.flatMap((p) => p.rooms)[0]?.number_of_rooms;
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
  const rooms = occupancy.map((o) => ['occupancy', o] as const);
  const repeated = await searchRaw(session, [
    ...dates,
    ...ids.map((id) => ['property_id', id] as const),
    ...rooms,
  ]);
  const comma = await searchRaw(
    session,
    `${encodeQuery(dates)}&property_id=${ids.join(',')}&${encodeQuery(rooms)}`,
  );
  return arrayEncodingVerdict({
    propertyIds: ids,
    rooms: occupancy.length,
    repeated: arrayProbe(repeated.statusCode, repeated.json),
    comma: arrayProbe(comma.statusCode, comma.json),
  });
}
