/** `GET /static_content_reference_list`: the reference lists of categories and amenities. */
import { z } from 'zod';
import { endpointSpec, json200, prepared, type PreparedRequest } from './endpoint';
import { LanguageCode, validateRequest } from './validation';

export const STATIC_REFERENCE_LIST = endpointSpec('GET', '/static_content_reference_list', 'read');

export const StaticReferenceListQuery = z.strictObject({ language: LanguageCode });

export interface StaticReferenceListParams {
  readonly language: LanguageCode;
}

export const ReferenceItem = z.looseObject({ id: z.string(), name: z.string() });

export const StaticReferenceListResponse = z.looseObject({
  categories: z.array(ReferenceItem),
  treatment_categories: z.array(ReferenceItem),
  room_amenities: z.array(ReferenceItem),
  property_amenities: z.array(ReferenceItem),
  hotel_attributes: z.array(ReferenceItem),
});
export type StaticReferenceListResponse = z.infer<typeof StaticReferenceListResponse>;

const RESPONSES = json200(StaticReferenceListResponse);

export function prepareStaticReferenceList(
  params: StaticReferenceListParams,
): PreparedRequest<StaticReferenceListResponse> {
  const { language } = params;
  const q = validateRequest(StaticReferenceListQuery, { language }, STATIC_REFERENCE_LIST);
  return prepared(STATIC_REFERENCE_LIST, [['language', q.language]], RESPONSES);
}
