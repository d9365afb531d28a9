/**
 * Deviations: ways a real supplier environment can differ from the documented contract, played
 * on request so that `hotel-booking doctor` can be tested against each (docs/doctor.md). Off by
 * default; each is named, and some take a parameter. Pure functions over the answer or request;
 * server.ts applies them.
 */
import { z } from 'zod';
import type { EndpointName } from './endpoints';

/** The deviation names, in the order docs/simulator.md lists them. */
export const DEVIATION_NAMES = [
  'renamed-field',
  'retyped-field',
  'detail-string',
  'date-format',
  'clock-offset',
  'comma-arrays',
  'slow-endpoint',
  'redirect',
] as const;
export type DeviationName = (typeof DEVIATION_NAMES)[number];

/** One row of the deviation table (docs/simulator.md renders it). */
export interface DeviationInfo {
  readonly name: DeviationName;
  /** What the supplier does differently. */
  readonly description: string;
  /** The doctor check that names it. */
  readonly detectedBy: string;
  readonly param?: { readonly meaning: string; readonly default: number };
}

/** Every deviation, what it changes and which doctor check reports it. */
export const DEVIATIONS: readonly DeviationInfo[] = [
  {
    name: 'renamed-field',
    description: 'Availability rooms carry `name` instead of `room_name`.',
    detectedBy: '`availability` fails; the new name is listed as an unknown field',
  },
  {
    name: 'retyped-field',
    description: 'The content list gives `total` as a string (`"412"`).',
    detectedBy: '`content-list` fails',
  },
  {
    name: 'detail-string',
    description: 'A 422 carries `detail` as one string instead of a list of `{type, loc, msg}`.',
    detectedBy: '`validation-errors` warns',
  },
  {
    name: 'date-format',
    description:
      'Dates as `DD/MM/YYYY` (and `DD/MM/YYYY HH:mm`): availability `cancel_penalties`, retrieve `check_in`, `check_out`, `penalty_date`.',
    detectedBy: '`date-formats` warns; with `--book`, `book-stay-terms` fails',
  },
  {
    name: 'clock-offset',
    description: 'The supplier clock (its `Date` and the signing window) runs ahead of ours.',
    detectedBy: '`clock` warns (clock correction on) or fails (off)',
    param: { meaning: 'seconds ahead', default: 600 },
  },
  {
    name: 'comma-arrays',
    description:
      'Availability reads `property_id` as one comma-separated value: of repeated keys only the last counts.',
    detectedBy: '`array-encoding` fails',
  },
  {
    name: 'slow-endpoint',
    description: 'Every property detail (`GET /properties/content/{id}`) answers this much later.',
    detectedBy: '`latency` warns (over half the timeout) or fails (over it)',
    param: { meaning: 'ms added', default: 2_000 },
  },
  {
    name: 'redirect',
    description:
      'The content list (`GET /properties/content/`) answers 308 to the same path under `/api/v2`.',
    detectedBy: '`redirects` fails (and `content-list` with it)',
  },
];

/** Deviations in force: each named one is on; a number is its parameter. */
export type Deviations = Partial<Record<DeviationName, true | number>>;

export const DeviationsSchema = z.partialRecord(
  z.enum(DEVIATION_NAMES),
  z.union([z.literal(true), z.number().finite().min(-86_400_000).max(86_400_000)]),
);

/** The parameter of a deviation in force, or `undefined` when it is off. */
export function deviationParam(d: Deviations, name: DeviationName): number | undefined {
  const v = d[name];
  if (v === undefined) return undefined;
  if (v !== true) return v;
  return DEVIATIONS.find((i) => i.name === name)?.param?.default ?? 0;
}

/** `clock-offset`: the skew the server clock starts with, ms. */
export function initialSkewMs(d: Deviations): number {
  return (deviationParam(d, 'clock-offset') ?? 0) * 1000;
}

/** `slow-endpoint`: extra delay before answering `endpoint`, ms. */
export function extraLatencyMs(d: Deviations, endpoint: EndpointName): number {
  return endpoint === 'content-detail' ? (deviationParam(d, 'slow-endpoint') ?? 0) : 0;
}

/** `redirect`: the Location to answer with (path and query), or `undefined`. */
export function redirectLocation(d: Deviations, sub: string, query: string): string | undefined {
  if (d.redirect === undefined || sub !== '/properties/content/') return undefined;
  return `/api/v2${sub}${query === '' ? '' : `?${query}`}`;
}

/** `comma-arrays`: the query as a supplier reading comma-separated arrays sees it. */
export function rewriteQuery(
  d: Deviations,
  endpoint: EndpointName,
  params: URLSearchParams,
): URLSearchParams {
  if (d['comma-arrays'] === undefined || endpoint !== 'availability') return params;
  const last = params.getAll('property_id').at(-1);
  if (last === undefined) return params;
  const out = new URLSearchParams(params);
  out.delete('property_id');
  for (const id of last.split(',')) out.append('property_id', id);
  return out;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const records = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isRecord) : []);

/** `2027-05-10` or `2027-05-08T12:00:00Z` as `10/05/2027` or `08/05/2027 12:00`. */
export function europeanDate(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}:\d{2}))?/.exec(value);
  if (m === null) return value;
  return `${m[3]}/${m[2]}/${m[1]}${m[4] === undefined ? '' : ` ${m[4]}`}`;
}

function rooms(body: Json): Json[] {
  return records(body.properties).flatMap((p) => records(p.rooms));
}

/** Each rewrite changes a parsed 2xx body in place. */
const BODY_REWRITES: readonly {
  readonly name: DeviationName;
  readonly endpoint: EndpointName;
  readonly apply: (body: Json) => void;
}[] = [
  {
    name: 'renamed-field',
    endpoint: 'availability',
    apply: (body) => {
      for (const r of rooms(body)) {
        r.name = r.room_name;
        delete r.room_name;
      }
    },
  },
  {
    name: 'retyped-field',
    endpoint: 'content-list',
    apply: (body) => {
      body.total = String(body.total);
    },
  },
  {
    name: 'date-format',
    endpoint: 'availability',
    apply: (body) => {
      for (const r of rooms(body)) {
        if (r.cancel_penalties !== undefined) r.cancel_penalties = europeanDate(r.cancel_penalties);
      }
    },
  },
  {
    name: 'date-format',
    endpoint: 'retrieve',
    apply: (body) => {
      for (const key of ['check_in', 'check_out', 'penalty_date'])
        body[key] = europeanDate(body[key]);
    },
  },
];

/** `detail-string`: a list of `{loc, msg}` as one sentence. */
function detailAsString(body: Json): void {
  if (!Array.isArray(body.detail)) return;
  body.detail = records(body.detail)
    .map((i) => `${Array.isArray(i.loc) ? i.loc.join('.') : ''}: ${String(i.msg)}`)
    .join('; ');
}

/** The JSON body to send for `endpoint` and `status` with the deviations in force. */
export function rewriteBody(
  d: Deviations,
  endpoint: EndpointName,
  status: number,
  body: string,
): string {
  const rewrites =
    status >= 200 && status < 300
      ? BODY_REWRITES.filter((r) => r.endpoint === endpoint && d[r.name] !== undefined)
      : [];
  const detail = status === 422 && d['detail-string'] !== undefined;
  if (rewrites.length === 0 && !detail) return body;
  const parsed: unknown = JSON.parse(body);
  if (!isRecord(parsed)) return body;
  for (const r of rewrites) r.apply(parsed);
  if (detail) detailAsString(parsed);
  return JSON.stringify(parsed);
}
