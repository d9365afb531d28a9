/** The supplier simulator: build it, listen, drive scenarios, inspect what it received. */
export { API_PREFIX, buildSimulator, listen } from './server';
export type { ListenResult, Simulator, SimulatorInspection } from './server';
export { DEMO_COMPANY } from './options';
export type { ArrivedRequest, SimulatorOptions } from './options';
export type { CompanyAccount } from './auth';
export type {
  CompanyFaultPatch,
  CompanyFaults,
  CompanyFaultSettings,
  ErrorRates,
  FaultPatch,
  FaultSettings,
  LatencyOption,
  RateLimitOption,
} from './faults';
export type { BookingFilter, CompanyView, InspectedBooking, RequestStats } from './inspection';
export { DEVIATIONS, DEVIATION_NAMES } from './deviations';
export type { DeviationInfo, DeviationName, Deviations } from './deviations';
export { HOSTILE_KINDS } from './hostile';
export type { HostileApplied, HostileKind, HostileRule } from './hostile';
export { ENDPOINTS } from './endpoints';
export type { EndpointName } from './endpoints';
export {
  SCENARIOS,
  SCENARIO_NAMES,
  formatOptionId,
  parseOptionId,
  scenarioOptionId,
} from './scenarios';
export type { OptionSpec, ScenarioInfo, ScenarioName, ScenarioOptionIdOptions } from './scenarios';
export {
  COUNTRY_CODES,
  DEFAULT_PROPERTY_ID,
  INITIALLY_INACTIVE_PROPERTY_IDS,
  PAGE_SIZE,
} from './catalogue';
export type { BookingStatus } from './bookings';
