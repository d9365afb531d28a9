/** Read-only supplier calls for callers who want them from a workflow: search and content. */
import type { HotelApiClient } from '../hotel-api';
import { supplierCall } from './failures';

type Arg<M extends keyof HotelApiClient> = HotelApiClient[M] extends (
  q: infer Q,
  ...rest: never[]
) => unknown
  ? Q
  : never;

export function createCatalogueActivities(deps: { readonly hotelApi: HotelApiClient }) {
  const { hotelApi } = deps;
  return {
    searchAvailability: (q: Arg<'availability'>) => supplierCall(() => hotelApi.availability(q)),
    listProperties: (q: Arg<'listProperties'>) => supplierCall(() => hotelApi.listProperties(q)),
    getProperty: (q: Arg<'getProperty'>) => supplierCall(() => hotelApi.getProperty(q)),
    staticReferenceList: (q: Arg<'staticReferenceList'>) =>
      supplierCall(() => hotelApi.staticReferenceList(q)),
  };
}
