/** Every activity the worker registers, built from its dependencies (tests inject their own). */
import { createBookingActivities, type BookingActivityDeps } from './booking';
import { createCatalogueActivities } from './catalogue';
import { createControlActivities } from './control';

export type ActivityDeps = BookingActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createBookingActivities(deps),
    ...createCatalogueActivities(deps),
    ...createControlActivities(),
  };
}

export type Activities = ReturnType<typeof createActivities>;
