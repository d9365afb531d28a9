/** `GET /static_content_reference_list`: the reference lists of categories and amenities. */
import { z } from 'zod';
import type { EndpointSpec, PreparedRequest } from './endpoint';
import type { LanguageCode } from './validation';
import { LanguageCode as LanguageCodeSchema, validateRequest } from './validation';

export const STATIC_REFERENCE_LIST = {
  method: 'GET',
  endpoint: '/static_content_reference_list',
  timeout: 'read',
} as const satisfies EndpointSpec;

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

/** Success statuses and how to read them; built once, not per call. */
const RESPONSES: PreparedRequest<StaticReferenceListResponse>['responses'] = {
  200: { json: StaticReferenceListResponse },
};

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
