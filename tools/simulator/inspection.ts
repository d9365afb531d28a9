/**
 * Inspection and control, outside `/api/v1` under `/__sim/` (served only with
 * `inspection: true`): what the supplier really received, and knobs to change it at runtime.
 *
 * | route | body | answer |
 * |---|---|---|
 * | `GET /__sim/bookings[?companyKey=&status=&custom_field_N=]` | | `{ bookings: InspectedBooking[] }` |
 * | `GET /__sim/requests` | | `RequestStats` |
 * | `GET /__sim/state` | | `{ faults, companyFaults, companies, clockSkewMs, inactiveProperties }` |
 * | `POST /__sim/reset` | | `{ ok: true }` |
 * | `GET`/`POST /__sim/faults` | `{ latency?, errorRate?, rateLimit? }` (null clears) | `{ faults }` |
 * | `GET`/`POST /__sim/company-faults` | `{ key, latency?, errorRate?, rateLimit?, hang? }` (null clears) or `{ key, clear: true }` | `{ companyFaults, hanging }` |
 * | `GET`/`POST /__sim/companies` | `{ key, secret?, active? }` or `{ key, revoke: true }` | `{ companies }` |
 * | `POST /__sim/properties/{id}/deactivate` (`/activate`) | | `{ id, active }` |
 * | `POST /__sim/clock` | `{ skewMs }` | `{ skewMs, now }` |
 * | `GET /__sim/hostile` | | `{ rules, applied: { total, last } }` |
 * | `POST /__sim/hostile` | `{ kind, endpoint?, seed?, times?, when? }` or `{ clear: true }` | `{ rules }` |
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { BookingAnswer, BookingStatus, StoredBooking } from './bookings';
import type {
  CompanyFaultPatch,
  CompanyFaults,
  CompanyFaultSettings,
  FaultPatch,
  FaultSettings,
} from './faults';
import { CompanyFaultPatchSchema, FaultPatchSchema } from './faults';
import type { HostileApplied, HostileRule } from './hostile';
import { HostileChangeSchema } from './hostile';
import { readBody } from './http-io';
import { formatAmount, CURRENCY } from './pricing';
import type { ScenarioName } from './scenarios';

/** A booking as inspection shows it. */
export interface InspectedBooking {
  readonly bookingId: number;
  readonly companyKey: string;
  /** The price-check token the booking was made with. */
  readonly token: string;
  readonly optionId: string;
  readonly scenario: ScenarioName;
  /** The scenario parameter; `null` means forever. */
  readonly param: number | null;
  readonly propertyId: number;
  readonly status: BookingStatus;
  readonly customFields: Readonly<Record<string, string>> | string | null;
  /** ISO 8601, by the server clock. */
  readonly createdAt: string;
  readonly checkin: string;
  readonly checkout: string;
  readonly rooms: number;
  readonly price: { readonly net: string; readonly currency: string };
  /** Whether the booking's 201 was written, lost (booking-lost) or delayed (booking-slow). */
  readonly answer: BookingAnswer;
  readonly retrieves: number;
  readonly cancelRequests: number;
  readonly cancelledBy: 'client' | 'supplier' | null;
}

/** Request counts since build or the last reset. */
export interface RequestStats {
  /** Requests to `/api/v1` and to unknown paths (inspection routes are not counted). */
  total: number;
  /** By endpoint name (`availability`, …, `not-found`, `method-not-allowed`). */
  byEndpoint: Record<string, { total: number; byStatus: Record<string, number> }>;
  /** By HTTP status (`"lost"` for connections destroyed without an answer). */
  byStatus: Record<string, number>;
  /**
   * By the API key of the company a request authenticated as (on arrival, and again where the
   * supplier checks the signature): its requests to each endpoint, whatever they were answered
   * (injected 503s, 429s and released hangs too). Requests without a valid signature of an
   * active company are not counted here.
   */
  byCompany: Record<string, { total: number; byEndpoint: Record<string, number> }>;
  /** 401/403/422-for-missing-header, by reason. */
  authFailures: { total: number; byReason: Record<string, number> };
  /** 503s injected by `errorRate`. */
  injectedErrors: number;
  /** 429s from `rateLimit`. */
  rateLimited: number;
  /** Unexpected exceptions answered 500 (should stay 0). */
  internalErrors: number;
}

export function emptyStats(): RequestStats {
  return {
    total: 0,
    byEndpoint: {},
    byStatus: {},
    // No prototype: a company key may be any text, `__proto__` too.
    byCompany: Object.create(null) as RequestStats['byCompany'],
    authFailures: { total: 0, byReason: {} },
    injectedErrors: 0,
    rateLimited: 0,
    internalErrors: 0,
  };
}

export function inspectBooking(b: StoredBooking): InspectedBooking {
  return {
    bookingId: b.bookingId,
    companyKey: b.companyKey,
    token: b.token,
    optionId: b.optionId,
    scenario: b.spec.scenario,
    param: b.spec.param === Infinity ? null : b.spec.param,
    propertyId: b.spec.propertyId,
    status: b.status,
    customFields:
      typeof b.request.customFields === 'object' && b.request.customFields !== null
        ? { ...b.request.customFields }
        : b.request.customFields,
    createdAt: new Date(b.createdAtMs).toISOString(),
    checkin: b.spec.checkin,
    checkout: b.spec.checkout,
    rooms: b.spec.occupancy.length,
    price: { net: formatAmount(b.netCents), currency: CURRENCY },
    answer: b.answer,
    retrieves: b.retrieves,
    cancelRequests: b.cancelRequests,
    cancelledBy: b.cancelledBy ?? null,
  };
}

/** Filters of {@link Inspector.bookings}. */
export interface BookingFilter {
  readonly companyKey?: string;
  readonly status?: BookingStatus;
  /** Bookings whose custom fields include all of these. */
  readonly customFields?: Readonly<Record<string, string>>;
}

/** A company account as inspection shows it (never the secret). */
export interface CompanyView {
  readonly key: string;
  readonly active: boolean;
}

/** What the control routes drive; the Simulator implements it (so tests can call it in-process). */
export interface Inspector {
  /** Every booking, oldest first, optionally filtered. */
  bookings(filter?: BookingFilter): InspectedBooking[];
  /** Request counts since build or the last reset (a copy). */
  requests(): RequestStats;
  /**
   * Back to the state as built: forgets bookings, tokens, per-option state and counts; restores
   * the built faults, companies, catalogue and clock, and reseeds. Booking ids keep increasing.
   */
  reset(): void;
  /** The fault settings in force (a copy). */
  faults(): FaultSettings;
  /** Changes faults: keys present replace, `null` clears, absent keys stay. Returns the result. */
  setFaults(patch: FaultPatch): FaultSettings;
  /** The faults of each company that has some, by API key (a copy). */
  companyFaults(): CompanyFaults;
  /**
   * Changes one company's faults as {@link setFaults} does (plus `hang`), or clears them all
   * (`null`); returns the company's faults. Requests it no longer hangs are released: their
   * connections are destroyed unanswered. Throws `RangeError` when setting faults of a key no
   * company has.
   */
  setCompanyFaults(key: string, patch: CompanyFaultPatch | null): CompanyFaultSettings;
  /** Requests hanging now (the `hang` fault), by company key. */
  hangingRequests(): Record<string, number>;
  /** The company accounts (keys and active flags, never secrets). */
  companies(): CompanyView[];
  /** Adds a company or changes its secret or active flag; a new company needs a secret. */
  upsertCompany(change: { key: string; secret?: string; active?: boolean }): CompanyView;
  /** Removes a company (its requests get 401); `false` when there was none. */
  revokeCompany(key: string): boolean;
  /** Activates or deactivates a catalogue property; `false` when the id is not in the catalogue. */
  setPropertyActive(id: number, active: boolean): boolean;
  /** Ids of the properties currently inactive. */
  inactiveProperties(): number[];
  /** How far the server clock is moved from `now()` (ms). */
  clockSkewMs(): number;
  /** Moves the server clock by `ms` (auth window, `Date`, token expiry, `created_at`). */
  setClockSkew(ms: number): void;
  /** The server clock, epoch ms. */
  now(): number;
  /** The hostile rules in force (hostile.ts). */
  hostileRules(): HostileRule[];
  /** Adds a hostile rule (after the others), or clears them all (`null`); returns those in force. */
  addHostileRule(rule: HostileRule | null): HostileRule[];
  /** The answers hostile rules spoiled: how many, and the last 100. */
  hostileApplied(): { total: number; last: HostileApplied[] };
}

const CompanyChangeSchema = z.union([
  z.strictObject({ key: z.string().min(1), revoke: z.literal(true) }),
  z.strictObject({
    key: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^,=\s]+$/, 'no commas, equals signs or spaces'),
    secret: z.string().min(1).max(500).optional(),
    active: z.boolean().optional(),
  }),
]);

const CompanyFaultChangeSchema = z.union([
  z.strictObject({ key: z.string().min(1), clear: z.literal(true) }),
  CompanyFaultPatchSchema.extend({ key: z.string().min(1) }),
]);

const ClockSchema = z.strictObject({ skewMs: z.number().int().min(-1e12).max(1e12) });

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}

const INSPECTION_BODY_LIMIT = 64 * 1024;

async function readJson(
  req: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const read = await readBody(req, INSPECTION_BODY_LIMIT);
  if (read.kind === 'too-large') return { ok: false, error: 'body too large' };
  if (read.kind === 'aborted') return { ok: false, error: 'aborted' };
  if (read.data.length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(read.data.toString('utf8')) as unknown };
  } catch {
    return { ok: false, error: 'invalid JSON' };
  }
}

/** Answers one `/__sim/...` request. */
export async function handleInspection(
  inspector: Inspector,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
): Promise<void> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const notFound = () => send(res, 404, { detail: 'Not Found' });
  const notAllowed = () => send(res, 405, { detail: 'Method Not Allowed' });

  const property = /^\/__sim\/properties\/(\d{1,9})\/(deactivate|activate)$/.exec(path);
  if (property) {
    if (method !== 'POST') return notAllowed();
    const id = Number(property[1]);
    const active = property[2] === 'activate';
    if (!inspector.setPropertyActive(id, active)) {
      return send(res, 404, { detail: `No property ${id} in the catalogue` });
    }
    return send(res, 200, { id, active });
  }

  switch (path) {
    case '/__sim/bookings': {
      if (method !== 'GET') return notAllowed();
      const params = new URLSearchParams(query);
      const customFields: Record<string, string> = {};
      for (const [k, v] of params) if (k.startsWith('custom_field_')) customFields[k] = v;
      const companyKey = params.get('companyKey') ?? undefined;
      const status = (params.get('status') ?? undefined) as BookingStatus | undefined;
      return send(res, 200, {
        bookings: inspector.bookings({
          ...(companyKey === undefined ? {} : { companyKey }),
          ...(status === undefined ? {} : { status }),
          customFields,
        }),
      });
    }
    case '/__sim/requests':
      if (method !== 'GET') return notAllowed();
      return send(res, 200, inspector.requests());
    case '/__sim/state':
      if (method !== 'GET') return notAllowed();
      return send(res, 200, {
        faults: inspector.faults(),
        companyFaults: inspector.companyFaults(),
        companies: inspector.companies(),
        clockSkewMs: inspector.clockSkewMs(),
        inactiveProperties: inspector.inactiveProperties(),
      });
    case '/__sim/reset':
      if (method !== 'POST') return notAllowed();
      inspector.reset();
      return send(res, 200, { ok: true });
    case '/__sim/faults': {
      if (method === 'GET') return send(res, 200, { faults: inspector.faults() });
      if (method !== 'POST') return notAllowed();
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { detail: body.error });
      const patch = FaultPatchSchema.safeParse(body.value);
      if (!patch.success) return send(res, 400, { detail: z.prettifyError(patch.error) });
      return send(res, 200, { faults: inspector.setFaults(patch.data) });
    }
    case '/__sim/company-faults': {
      const answer = () =>
        send(res, 200, {
          companyFaults: inspector.companyFaults(),
          hanging: inspector.hangingRequests(),
        });
      if (method === 'GET') return answer();
      if (method !== 'POST') return notAllowed();
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { detail: body.error });
      const change = CompanyFaultChangeSchema.safeParse(body.value);
      if (!change.success) return send(res, 400, { detail: z.prettifyError(change.error) });
      if ('clear' in change.data) {
        inspector.setCompanyFaults(change.data.key, null);
        return answer();
      }
      const { key, ...patch } = change.data;
      try {
        inspector.setCompanyFaults(key, patch);
      } catch (err) {
        return send(res, 404, { detail: err instanceof Error ? err.message : String(err) });
      }
      return answer();
    }
    case '/__sim/companies': {
      if (method === 'GET') return send(res, 200, { companies: inspector.companies() });
      if (method !== 'POST') return notAllowed();
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { detail: body.error });
      const change = CompanyChangeSchema.safeParse(body.value);
      if (!change.success) return send(res, 400, { detail: z.prettifyError(change.error) });
      if ('revoke' in change.data) {
        if (!inspector.revokeCompany(change.data.key)) {
          return send(res, 404, { detail: `No company ${change.data.key}` });
        }
      } else {
        try {
          inspector.upsertCompany(change.data);
        } catch (err) {
          return send(res, 400, { detail: err instanceof Error ? err.message : String(err) });
        }
      }
      return send(res, 200, { companies: inspector.companies() });
    }
    case '/__sim/clock': {
      if (method === 'GET')
        return send(res, 200, { skewMs: inspector.clockSkewMs(), now: inspector.now() });
      if (method !== 'POST') return notAllowed();
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { detail: body.error });
      const clock = ClockSchema.safeParse(body.value);
      if (!clock.success) return send(res, 400, { detail: z.prettifyError(clock.error) });
      inspector.setClockSkew(clock.data.skewMs);
      return send(res, 200, { skewMs: inspector.clockSkewMs(), now: inspector.now() });
    }
    case '/__sim/hostile': {
      if (method === 'GET')
        return send(res, 200, {
          rules: inspector.hostileRules(),
          applied: inspector.hostileApplied(),
        });
      if (method !== 'POST') return notAllowed();
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { detail: body.error });
      const change = HostileChangeSchema.safeParse(body.value);
      if (!change.success) return send(res, 400, { detail: z.prettifyError(change.error) });
      const rule = 'clear' in change.data ? null : change.data;
      return send(res, 200, { rules: inspector.addHostileRule(rule) });
    }
    default:
      return notFound();
  }
}
