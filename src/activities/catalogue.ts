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
    async searchAvailability(q: Arg<'availability'>) {
      return supplierCall(() => hotelApi.availability(q));
    },
    async listProperties(q: Arg<'listProperties'>) {
      return supplierCall(() => hotelApi.listProperties(q));
    },
    async getProperty(q: Arg<'getProperty'>) {
      return supplierCall(() => hotelApi.getProperty(q));
    },
    async staticReferenceList(q: Arg<'staticReferenceList'>) {
      return supplierCall(() => hotelApi.staticReferenceList(q));
    },
  };
}

export type CatalogueActivities = ReturnType<typeof createCatalogueActivities>;
