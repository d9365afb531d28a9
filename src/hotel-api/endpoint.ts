/**
 * What an endpoint module hands the client: a validated, fully built request and how to read
 * each success status. Endpoint modules are pure; only `client.ts` does I/O. Each one's `prepareX`
 * validates its params first and throws INVALID_REQUEST naming each bad field (nothing sent).
 */
import type { z } from 'zod';
import type { HttpMethod } from './errors';

/** Which configured timeout applies: `config.timeouts.readMs`, `searchMs` or `bookingMs`. */
export type TimeoutClass = 'read' | 'search' | 'booking';

/** The fixed facts of one endpoint. */
export interface EndpointSpec {
  readonly method: HttpMethod;
  /** Path template relative to `/api/v1`; used as the `endpoint` label of errors and metrics. */
  readonly endpoint: string;
  readonly timeout: TimeoutClass;
}

/** Query parameters in order; a key may repeat (arrays are sent as repeated keys). */
export type QueryPairs = readonly (readonly [string, string])[];

/** How to read one success status: a JSON body parsed by a schema, or an empty body. */
export type ResponseReader<T> = { readonly json: z.ZodType<T> } | { readonly empty: T };

/** A request that passed validation; nothing invalid ever becomes one. */
export interface PreparedRequest<T> extends EndpointSpec {
  /** Concrete path relative to `/api/v1`, without the query. */
  readonly path: string;
  readonly query: QueryPairs;
  /** JSON body, for POST. */
  readonly body?: unknown;
  /** Success statuses and how to read them; any other status is classified as an error. */
  readonly responses: Readonly<Partial<Record<number, ResponseReader<T>>>>;
  /**
   * What an answer that matches its schema must also be, given the request (the booking asked
   * for): `undefined` when it is, else why not (a CONTRACT error). @default no check
   */
  readonly verify?: (value: T) => string | undefined;
}

export function endpointSpec(
  method: HttpMethod,
  endpoint: string,
  timeout: TimeoutClass,
): EndpointSpec {
  return { method, endpoint, timeout };
}

/** The usual success: 200 with a JSON body read by `json` (built once per endpoint, not per call). */
export function json200<T>(json: z.ZodType<T>): PreparedRequest<T>['responses'] {
  return { 200: { json } };
}

/** The request of `spec` with this query, at the path template unless `more` gives another. */
export function prepared<T>(
  spec: EndpointSpec,
  query: QueryPairs,
  responses: PreparedRequest<T>['responses'],
  more?: Partial<Pick<PreparedRequest<T>, 'path' | 'body' | 'verify'>>,
): PreparedRequest<T> {
  return { ...spec, path: spec.endpoint, query, responses, ...more };
}
