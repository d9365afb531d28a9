/** The supplier endpoints, by the names the simulator counts and injects faults under. */
export const ENDPOINTS = [
  'availability',
  'content-list',
  'content-detail',
  'reference-list',
  'price-check',
  'booking',
  'cancel',
  'retrieve',
] as const;

export type EndpointName = (typeof ENDPOINTS)[number];

/** Where a request landed when it matched no endpoint (counted too). */
export type RequestTarget = EndpointName | 'not-found' | 'method-not-allowed';
