/** `GET /static_content_reference_list`: the reference lists of categories and amenities. */
import { z } from 'zod';
import { endpointSpec, json200, type PreparedRequest } from './endpoint';
import type { LanguageCode } from './validation';
import { LanguageCode as LanguageCodeSchema, validateRequest } from './validation';

export const STATIC_REFERENCE_LIST = endpointSpec('GET', '/static_content_reference_list', 'read');

export const StaticReferenceListQuery = z.strictObject({ language: LanguageCodeSchema });
export type StaticReferenceListQuery = z.infer<typeof StaticReferenceListQuery>;

export interface StaticReferenceListParams {
  readonly language: LanguageCode;
}

export const ReferenceItem = z.looseObject({ id: z.string(), name: z.string() });
export type ReferenceItem = z.infer<typeof ReferenceItem>;

export const StaticReferenceListResponse = z.looseObject({
  categories: z.array(ReferenceItem),
  treatment_categories: z.array(ReferenceItem),
  room_amenities: z.array(ReferenceItem),
  property_amenities: z.array(ReferenceItem),
  hotel_attributes: z.array(ReferenceItem),
});
export type StaticReferenceListResponse = z.infer<typeof StaticReferenceListResponse>;

const RESPONSES = json200(StaticReferenceListResponse);

/** Validates and builds the request; throws INVALID_REQUEST naming the field. */
export function prepareStaticReferenceList(
  params: StaticReferenceListParams,
): PreparedRequest<StaticReferenceListResponse> {
  const q = validateRequest(
    StaticReferenceListQuery,
    { language: params.language },
    STATIC_REFERENCE_LIST,
  );
  return {
    ...STATIC_REFERENCE_LIST,
    path: STATIC_REFERENCE_LIST.endpoint,
    query: [['language', q.language]],
    responses: RESPONSES,
  };
}
