/**
 * Helpers for the simulator tests: start a simulator on port 0 and call it over real HTTP,
 * signing with the project's signing module (never the hotel-api client).
 */
import { request } from 'undici';
import type { Credentials } from '../../src/hotel-api/signing';
import { sign } from '../../src/hotel-api/signing';
import type { Simulator, SimulatorOptions } from '../../tools/simulator';
import { buildSimulator, scenarioOptionId } from '../../tools/simulator';
import type { ScenarioName, ScenarioOptionIdOptions } from '../../tools/simulator';

export const ACME = { key: 'acme-key', secret: 'acme-secret-0123456789', active: true } as const;
export const OTHER = { key: 'other-key', secret: 'other-secret-0123456789', active: true } as const;
export const DORMANT = {
  key: 'dormant-key',
  secret: 'dormant-secret-012345',
  active: false,
} as const;

/** A response, body parsed as JSON when it is JSON. */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  // Tests read arbitrary fields; a loose type keeps them short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly elapsedMs: number;
}

export interface CallOptions {
  /** Sign as this company; `null` sends no authorization header. @default ACME */
  readonly as?: Credentials | null;
  /** Sign with this clock (epoch ms). @default Date.now() */
  readonly signedAt?: number;
  /** A raw authorization header, instead of signing. */
  readonly authorization?: string;
  readonly headers?: Record<string, string>;
  /** A JSON body (serialized, with content type). */
  readonly json?: unknown;
  /** A raw body. */
  readonly body?: string | Buffer;
}

export interface TestSim {
  readonly sim: Simulator;
  /** API base, `http://127.0.0.1:<port>/api/v1`. */
  readonly url: string;
  readonly origin: string;
  /** Calls `path` (relative to the API base unless it starts with `/__sim` or `//`). */
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  get(path: string, opts?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

/** Starts a simulator with ACME, OTHER and DORMANT accounts and inspection on. */
export async function startSim(options: SimulatorOptions = {}): Promise<TestSim> {
  const sim = buildSimulator({ companies: [ACME, OTHER, DORMANT], inspection: true, ...options });
  const { url, origin } = await sim.listen(0, '127.0.0.1');
  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...opts.headers };
    const as = opts.as === undefined ? ACME : opts.as;
    if (opts.authorization !== undefined) headers.authorization = opts.authorization;
    else if (as !== null) headers.authorization = sign(as, opts.signedAt ?? Date.now());
    let body: string | Buffer | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] ??= 'application/json';
    }
    const target = path.startsWith('/__sim')
      ? `${origin}${path}`
      : path.startsWith('//')
        ? `${origin}${path.slice(1)}`
        : `${url}${path}`;
    const started = performance.now();
    const res = await request(target, {
      method: method as 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.body.text();
    const elapsedMs = performance.now() - started;
    let parsed: unknown = undefined;
    if (text.length > 0 && String(res.headers['content-type']).includes('json'))
      parsed = JSON.parse(text);
    return { status: res.statusCode, headers: res.headers, text, body: parsed, elapsedMs };
  };
  return {
    sim,
    url,
    origin,
    call,
    get: (path, opts) => call('GET', path, opts),
    close: () => sim.close(),
  };
}

/** A valid booking body for `rooms` rooms. */
export function bookingBody(
  rooms = 1,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    room_detail: Array.from({ length: rooms }, (_, i) => ({
      lead_first_name: `Ada${i + 1}`,
      lead_last_name: 'Lovelace',
      notes: i === 0 ? 'late arrival' : null,
    })),
    phone_number_prefix: '+39',
    phone_number: '3331234567',
    email: 'ada@example.com',
    custom_fields: { custom_field_1: 'order-1', custom_field_10: 'ord-42' },
    ...extra,
  };
}

/** Price-checks an option and returns the answer. */
export async function priceCheck(
  t: TestSim,
  optionId: string,
  opts: CallOptions = {},
): Promise<Reply> {
  return t.get(`/price-check?option_id=${encodeURIComponent(optionId)}`, opts);
}

/** Books with a price-check token. */
export async function book(
  t: TestSim,
  token: string,
  body: unknown = bookingBody(),
  opts: CallOptions = {},
): Promise<Reply> {
  return t.call('POST', `/booking?option_id=${encodeURIComponent(token)}`, { json: body, ...opts });
}

/** Price-check then book a scenario option; fails loudly when the price check gives no token. */
export async function bookScenario(
  t: TestSim,
  scenario: ScenarioName,
  idOptions: ScenarioOptionIdOptions = {},
  body: unknown = bookingBody(idOptions.rooms ?? 1),
  opts: CallOptions = {},
): Promise<{ optionId: string; token: string; reply: Reply }> {
  const optionId = scenarioOptionId(scenario, idOptions);
  const check = await priceCheck(t, optionId, opts);
  if (check.status !== 200 || typeof check.body?.booking_id !== 'string') {
    throw new Error(`price check of ${optionId} answered ${check.status} ${check.text}`);
  }
  const token = check.body.booking_id as string;
  return { optionId, token, reply: await book(t, token, body, opts) };
}

export const retrieve = (t: TestSim, id: number | string, opts: CallOptions = {}) =>
  t.get(`/retrieve?booking_id=${id}`, opts);

export const cancel = (t: TestSim, id: number | string, opts: CallOptions = {}) =>
  t.call('DELETE', `/cancel?booking_id=${id}`, opts);

/** `n` retrieves in a row; the statuses read. */
export async function statuses(t: TestSim, id: number, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await retrieve(t, id)).body.status as string);
  return out;
}

/** An availability query string. */
export function availabilityQuery(
  ids: readonly (number | string)[],
  occupancy: readonly string[] = ['2'],
  checkin = '2026-06-01',
  checkout = '2026-06-03',
): string {
  const q = new URLSearchParams({ checkin, checkout });
  for (const id of ids) q.append('property_id', String(id));
  for (const o of occupancy) q.append('occupancy', o);
  return `/properties/availability?${q.toString()}`;
}

/** A clock tests can move. */
export function manualClock(start = Date.UTC(2026, 4, 1, 10, 0, 0)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    set: (ms: number) => {
      now = ms;
    },
  };
}

/** Runs `fn` against a simulator of `options`, closed afterwards even when `fn` throws. */
export async function withSim<T>(
  options: Parameters<typeof startSim>[0],
  fn: (t: TestSim) => Promise<T>,
): Promise<T> {
  const t = await startSim(options);
  try {
    return await fn(t);
  } finally {
    await t.close();
  }
}
