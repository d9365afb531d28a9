/** `GET /properties/content/` (the paginated list) and `GET /properties/content/{hotel_id}`. */
import { z } from 'zod';
import { endpointSpec, json200, prepared, type PreparedRequest, type QueryPairs } from './endpoint';
import { CountryCode, LanguageCode, PositiveId, validateRequest } from './validation';

// The seed spells the list with a trailing slash; FastAPI redirects the other spelling.
export const PROPERTY_LIST = endpointSpec('GET', '/properties/content/', 'read');

export const PROPERTY_DETAIL = endpointSpec('GET', '/properties/content/{hotel_id}', 'read');

export const PropertyListQuery = z.strictObject({
  country_code: CountryCode,
  /** @default 'en' (the supplier's default; omitted when not given) */
  language_code: LanguageCode.optional(),
  /** @default 1 (the supplier's default; omitted when not given) */
  page: z.number().int('must be an integer').min(1, 'must be at least 1').optional(),
});

export interface PropertyListParams {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly countryCode: string;
  /** @default 'en' */
  readonly languageCode?: LanguageCode;
  /** @default 1 */
  readonly page?: number;
}

/**
 * One item of the list. The seed does not show the item fields; we (and the simulator) use an
 * `id` and a `name` and keep whatever else comes.
 */
export const PropertyListItem = z.looseObject({ id: z.number().int(), name: z.string() });

/** The seed shows only `total`; the items travel under `properties` (agreed with the simulator). */
export const PropertyListResponse = z.looseObject({
  total: z.number().int().min(0),
  properties: z.array(PropertyListItem),
});
export type PropertyListResponse = z.infer<typeof PropertyListResponse>;

/** `hotel_id` goes in the path, `language_code` in the query. */
export const PropertyDetailQuery = z.strictObject({
  hotel_id: PositiveId,
  /** @default 'en' */
  language_code: LanguageCode.optional(),
});

export interface PropertyDetailParams {
  readonly hotelId: number;
  /** @default 'en' */
  readonly languageCode?: LanguageCode;
}

const nullableString = z.string().nullable().optional();
const nullableNumber = z.number().nullable().optional();

/**
 * The property detail record. Fields the seed lists are typed; the rest (descriptions, images,
 * themes, attributes, amenities, rooms, whose places are not shown) pass through untyped.
 */
export const PropertyDetail = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  stars: nullableNumber,
  pic: nullableString,
  city: nullableString,
  address: nullableString,
  state_code: nullableString,
  state_name: nullableString,
  zipcode: nullableString,
  category: nullableString,
  phone_nr: nullableString,
  coordinates: z.looseObject({ latitude: z.number(), longitude: z.number() }).nullable().optional(),
  country: z.looseObject({ code: z.string(), name: z.string() }).nullable().optional(),
  guest_rating_count: z.number().int().nullable().optional(),
  guest_rating_overall: nullableNumber,
  guest_rating_cleanliness: nullableNumber,
  guest_rating_service: nullableNumber,
  guest_rating_comfort: nullableNumber,
  guest_rating_condition: nullableNumber,
  guest_rating_location: nullableNumber,
  guest_rating_neighborhood: nullableNumber,
  guest_rating_amenities: nullableNumber,
});
export type PropertyDetail = z.infer<typeof PropertyDetail>;

/** `key=value`, or nothing when the value is absent. */
function optionalPair(key: string, value: string | number | undefined): QueryPairs {
  return value === undefined ? [] : [[key, String(value)]];
}

const LIST_RESPONSES = json200(PropertyListResponse);

export function preparePropertyList(
  params: PropertyListParams,
): PreparedRequest<PropertyListResponse> {
  const q = validateRequest(
    PropertyListQuery,
    { country_code: params.countryCode, language_code: params.languageCode, page: params.page },
    PROPERTY_LIST,
  );
  const language = optionalPair('language_code', q.language_code);
  const page = optionalPair('page', q.page);
  const query: QueryPairs = [['country_code', q.country_code], ...language, ...page];
  return prepared(PROPERTY_LIST, query, LIST_RESPONSES);
}

const DETAIL_RESPONSES = json200(PropertyDetail);

export function preparePropertyDetail(
  params: PropertyDetailParams,
): PreparedRequest<PropertyDetail> {
  const q = validateRequest(
    PropertyDetailQuery,
    { hotel_id: params.hotelId, language_code: params.languageCode },
    PROPERTY_DETAIL,
  );
  const language = optionalPair('language_code', q.language_code);
  const path = `/properties/content/${q.hotel_id}`;
  return prepared(PROPERTY_DETAIL, language, DETAIL_RESPONSES, { path });
}
