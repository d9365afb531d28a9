/**
 * The simulator: a plain `node:http` server implementing the supplier API under `/api/v1`, with
 * scenarios, faults and inspection. Built by {@link buildSimulator} without listening, so tests
 * start it on port 0; {@link listen} (or `sim.listen`) binds it.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ApiContext, Endpoint, Exchange } from './api';
import { createEndpoints } from './api';
import type { AuthFailure, CompanyAccount } from './auth';
import { Authenticator } from './auth';
import { BookingStore } from './bookings';
import type { PropertyBase } from './catalogue';
import { allProperties, findProperty } from './catalogue';
import {
  extraLatencyMs,
  initialSkewMs,
  redirectLocation,
  rewriteBody,
  rewriteQuery,
} from './deviations';
import type { EndpointName, RequestTarget } from './endpoints';
import { ENDPOINTS } from './endpoints';
import type {
  CompanyFaultPatch,
  CompanyFaults,
  CompanyFaultSettings,
  FaultPatch,
  FaultSettings,
} from './faults';
import { errorRateFor, faultsFor, patchCompanyFaults, patchFaults, sampleLatency } from './faults';
import type { Answer, Armed, HostileRule, SeenRequest } from './hostile';
import { answerHostile, HostileMode } from './hostile';
import type { ParsedBody } from './http-io';
import { parseJsonBody, readBody, splitTarget } from './http-io';
import type {
  BookingFilter,
  CompanyView,
  InspectedBooking,
  Inspector,
  RequestStats,
} from './inspection';
import { emptyStats, handleInspection, inspectBooking } from './inspection';
import type { ResolvedOptions, SimulatorOptions } from './options';
import { resolveOptions } from './options';
import type { Prng } from './prng';
import { createPrng } from './prng';
import { RateLimiter } from './rate-limiter';
import type { ValidationIssue } from './validation';
import { MISSING_AUTHORIZATION, validationBody } from './validation';

/** The base path of the supplier API. */
export const API_PREFIX = '/api/v1';

/** Where a listening simulator can be reached. */
export interface ListenResult {
  /** The API base, e.g. `http://127.0.0.1:41234/api/v1`. */
  readonly url: string;
  /** The server origin without the API prefix, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  readonly port: number;
}

/** Everything inspection shows at once. */
export interface SimulatorInspection {
  readonly bookings: InspectedBooking[];
  readonly requests: RequestStats;
}

/** A built simulator. Also the in-process face of the `/__sim` inspection and control routes. */
export interface Simulator extends Inspector {
  /** The underlying server (not listening until {@link Simulator.listen}). */
  readonly server: Server;
  /** The API base URL once listening, else `undefined`. */
  readonly url: string | undefined;
  /** Binds the server. @default port 0 (any free port), host 127.0.0.1 */
  listen(port?: number, host?: string): Promise<ListenResult>;
  /** Stops listening, drops open connections and pending delayed answers. */
  close(): Promise<void>;
  /** Bookings and request counts. */
  inspect(): SimulatorInspection;
  /** `setPropertyActive(id, false)`. */
  deactivateProperty(id: number): boolean;
}

const json = (detail: unknown) => JSON.stringify({ detail });
const NOT_FOUND = json('Not Found');
const METHOD_NOT_ALLOWED = json('Method Not Allowed');
const INVALID_CREDENTIALS = json('Invalid API credentials');
const INACTIVE_COMPANY = json('Company account is not active');
const SERVICE_UNAVAILABLE = json('Service Unavailable');
const TOO_MANY_REQUESTS = json('Too Many Requests');
const TOO_LARGE = json('Request body too large');
const INTERNAL_ERROR = json('Internal Server Error');

interface Route {
  readonly endpoint: EndpointName;
  readonly method: 'GET' | 'POST' | 'DELETE';
}

const ROUTES = new Map<string, Route>([
  ['/properties/availability', { endpoint: 'availability', method: 'GET' }],
  ['/properties/content/', { endpoint: 'content-list', method: 'GET' }],
  ['/static_content_reference_list', { endpoint: 'reference-list', method: 'GET' }],
  ['/price-check', { endpoint: 'price-check', method: 'GET' }],
  ['/booking', { endpoint: 'booking', method: 'POST' }],
  ['/cancel', { endpoint: 'cancel', method: 'DELETE' }],
  ['/retrieve', { endpoint: 'retrieve', method: 'GET' }],
]);
const DETAIL_PREFIX = '/properties/content/';
const DETAIL_ROUTE: Route = { endpoint: 'content-detail', method: 'GET' };

/** A request held by the `hang` fault. */
interface HungRequest {
  readonly companyKey: string;
  /** Ends it unanswered (destroys its connection); does nothing the second time. */
  release(): void;
}

/** Who sent a request, for faults and `byCompany`: set on arrival, corrected by the auth check. */
interface Caller {
  companyKey: string | undefined;
}

function matchRoute(path: string): { route: Route; hotelId?: string } | undefined {
  const exact = ROUTES.get(path);
  if (exact !== undefined) return { route: exact };
  if (path.length > DETAIL_PREFIX.length && path.startsWith(DETAIL_PREFIX)) {
    const hotelId = path.slice(DETAIL_PREFIX.length);
    if (!hotelId.includes('/')) return { route: DETAIL_ROUTE, hotelId };
  }
  return undefined;
}

/** Builds a simulator without listening. Throws `RangeError` on invalid options. */
export function buildSimulator(options: SimulatorOptions = {}): Simulator {
  return new SimulatorImpl(resolveOptions(options));
}

/** Binds a built simulator (same as `sim.listen(port, host)`). */
export function listen(
  sim: Simulator,
  { port = 0, host = '127.0.0.1' }: { port?: number; host?: string } = {},
): Promise<ListenResult> {
  return sim.listen(port, host);
}

class SimulatorImpl implements Simulator, ApiContext {
  readonly server: Server;
  readonly store: BookingStore;
  readonly options: ResolvedOptions;
  prng: Prng;
  url: string | undefined;

  private readonly auth: Authenticator;
  private readonly limiter = new RateLimiter();
  private readonly endpoints: Readonly<Record<EndpointName, Endpoint>>;
  private faultSettings: FaultSettings;
  private companyFaultSettings = new Map<string, CompanyFaultSettings>();
  private readonly hung = new Set<HungRequest>();
  /** Properties whose active flag differs from the catalogue as shipped. */
  private readonly activeOverride = new Map<number, boolean>();
  private stats: RequestStats = emptyStats();
  private requestCounter = 0;
  private skewMs = 0;
  private readonly clock: () => number;
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  private readonly sockets = new Set<Socket>();
  private readonly hostileMode: HostileMode;
  /** The last unexpected exception (a debugging aid; `internalErrors` counts them). */
  lastError: unknown;

  constructor(options: ResolvedOptions) {
    this.options = options;
    this.clock = options.now ?? Date.now;
    this.prng = createPrng(options.seed);
    this.auth = new Authenticator(options.companies);
    this.store = new BookingStore(options.firstBookingId);
    this.faultSettings = this.initialFaults();
    this.companyFaultSettings = new Map(options.companyFaults);
    this.skewMs = initialSkewMs(options.deviations);
    this.endpoints = createEndpoints(this);
    this.hostileMode = new HostileMode(options.hostile, options.seed);
    this.server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
      this.dispatch(req, res).catch((err: unknown) => this.fail(res, err));
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Malformed HTTP (bad request line, invalid header bytes, oversized headers) must never crash
    // the process: answer 400/431 when the socket can still take it, then close.
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (!socket.writable || err.code === 'ECONNRESET') {
        socket.destroy();
        return;
      }
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
      const body = json(reason);
      this.requestCounter += 1;
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\n` +
          `date: ${new Date(this.now()).toUTCString()}\r\n` +
          `x-request-id: sim-${this.requestCounter.toString(36)}\r\n` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
          `connection: close\r\n\r\n${body}`,
      );
    });
  }

  private initialFaults(): FaultSettings {
    const { latency, errorRate, rateLimit } = this.options;
    return {
      ...(latency ? { latency } : {}),
      ...(errorRate ? { errorRate } : {}),
      ...(rateLimit ? { rateLimit } : {}),
    };
  }

  // ---- ApiContext -------------------------------------------------------------------------

  now(): number {
    return this.clock() + this.skewMs;
  }

  isPropertyActive(p: PropertyBase): boolean {
    return this.activeOverride.get(p.id) ?? !p.initiallyInactive;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve();
        }, ms),
        wake: resolve,
      };
      this.sleepers.add(sleeper);
    });
  }

  // ---- request handling -------------------------------------------------------------------

  private record(
    target: RequestTarget,
    status: number | 'lost',
    companyKey: string | undefined,
  ): void {
    const s = this.stats;
    const key = String(status);
    s.total += 1;
    if (companyKey !== undefined) {
      let c = s.byCompany[companyKey];
      if (c === undefined) {
        c = { total: 0, byEndpoint: {} };
        s.byCompany[companyKey] = c;
      }
      c.total += 1;
      c.byEndpoint[target] = (c.byEndpoint[target] ?? 0) + 1;
    }
    s.byStatus[key] = (s.byStatus[key] ?? 0) + 1;
    let e = s.byEndpoint[target];
    if (e === undefined) {
      e = { total: 0, byStatus: {} };
      s.byEndpoint[target] = e;
    }
    e.total += 1;
    e.byStatus[key] = (e.byStatus[key] ?? 0) + 1;
  }

  private recordAuthFailure(reason: AuthFailure | 'missing'): void {
    const a = this.stats.authFailures;
    a.total += 1;
    a.byReason[reason] = (a.byReason[reason] ?? 0) + 1;
  }

  private exchange(
    res: ServerResponse,
    target: RequestTarget,
    seen: SeenRequest,
    caller: Caller = { companyKey: undefined },
  ): Exchange & { preempted(): boolean } {
    let done = false;
    const finish = (status: number | 'lost'): boolean => {
      if (done) return false;
      done = true;
      this.record(target, status, caller.companyKey);
      return true;
    };
    const deviations = this.options.deviations;
    const endpoint = (ENDPOINTS as readonly string[]).includes(target)
      ? (target as EndpointName)
      : undefined;
    // The hostile mode's rule for this request, matched once, when it is first answered.
    let matched = false;
    let armed: Armed | undefined;
    const hostile = () => {
      if (!matched) armed = endpoint && this.hostileMode.arm(endpoint, seen);
      matched = true;
      return armed;
    };
    const spoiled = (answer: Answer): boolean => {
      const h = hostile();
      if (h === undefined) return false;
      answerHostile(res, h, answer);
      return true;
    };
    return {
      json: (status, raw, headers) => {
        if (!finish(status) || res.destroyed) return;
        const body = endpoint === undefined ? raw : rewriteBody(deviations, endpoint, status, raw);
        if (spoiled({ status, body, headers: headers ?? {} })) return;
        if (headers !== undefined)
          for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
        res.writeHead(status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      },
      empty: (status) => {
        if (!finish(status) || res.destroyed) return;
        if (spoiled({ status, body: undefined, headers: {} })) return;
        res.writeHead(status);
        res.end();
      },
      drop: () => {
        if (!finish('lost')) return;
        res.socket?.destroy();
        res.destroy();
      },
      // A hostile refusal answers instead of the endpoint: nothing is processed.
      preempted: () => {
        const h = hostile();
        if (h === undefined || !h.preempts || !finish(h.status ?? 422)) return false;
        answerHostile(res, h, { status: h.status ?? 422, body: undefined, headers: {} });
        return true;
      },
    };
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requestCounter += 1;
    res.setHeader('x-request-id', `sim-${this.requestCounter.toString(36)}`);
    // Node writes a Date header from the real clock; write ours when the server clock differs.
    if (this.options.now !== undefined || this.skewMs !== 0) {
      res.setHeader('date', new Date(this.now()).toUTCString());
    }
    const { path, query } = splitTarget(req.url);
    const seen = { target: req.url ?? '', authorization: req.headers.authorization, body: '' };

    if (path === '/__sim' || path.startsWith('/__sim/')) {
      if (!this.options.inspection) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(NOT_FOUND);
        return;
      }
      await handleInspection(this, req, res, path, query);
      return;
    }

    const sub = path.startsWith(`${API_PREFIX}/`) ? path.slice(API_PREFIX.length) : undefined;
    const moved =
      sub === undefined ? undefined : redirectLocation(this.options.deviations, sub, query);
    if (moved !== undefined) {
      res.setHeader('location', `http://${req.headers.host ?? '127.0.0.1'}${moved}`);
      this.exchange(res, 'content-list', seen).empty(308);
      return;
    }
    const matched = sub === undefined ? undefined : matchRoute(sub);
    if (sub === undefined || matched === undefined) {
      const ex = this.exchange(res, 'not-found', seen);
      // Starlette redirects to the path with (or without) the trailing slash when that one exists.
      const toggled =
        sub === undefined || sub === '/'
          ? undefined
          : sub.endsWith('/')
            ? sub.slice(0, -1)
            : `${sub}/`;
      if (toggled !== undefined && matchRoute(toggled) !== undefined) {
        const host = req.headers.host ?? '127.0.0.1';
        const location = `http://${host}${API_PREFIX}${toggled}${query === '' ? '' : `?${query}`}`;
        try {
          res.setHeader('location', encodeURI(location));
          ex.empty(307);
          return;
        } catch {
          // A Location that cannot be written (odd Host header): answer as an unknown path.
        }
      }
      ex.json(404, NOT_FOUND);
      return;
    }

    const { route, hotelId } = matched;
    const method = req.method === 'HEAD' && route.method === 'GET' ? 'GET' : req.method;
    if (method !== route.method) {
      this.exchange(res, 'method-not-allowed', seen).json(405, METHOD_NOT_ALLOWED, {
        allow: route.method,
      });
      return;
    }
    const header = req.headers.authorization;
    // The company whose faults apply and under which the request is counted: the one its header
    // authenticates as now (cached, so the check below costs no second HMAC).
    const caller: Caller = { companyKey: this.signedBy(header) };
    const ex = this.exchange(res, route.endpoint, seen, caller);
    this.options.onRequest?.({ endpoint: route.endpoint, query, atMs: Date.now() });

    const faults = this.faultsOf(caller.companyKey);
    if (faults.hang === true && caller.companyKey !== undefined) {
      this.hang(caller.companyKey, req, res, ex);
      return;
    }

    const latency =
      sampleLatency(faults.latency, this.prng) +
      extraLatencyMs(this.options.deviations, route.endpoint);
    if (latency > 0) await this.sleep(latency);

    const rate = errorRateFor(faults.errorRate, route.endpoint);
    if (rate > 0 && this.prng.next() < rate) {
      this.stats.injectedErrors += 1;
      ex.json(503, SERVICE_UNAVAILABLE);
      return;
    }

    let body: ParsedBody | undefined;
    if (route.method === 'POST') {
      const read = await readBody(req, this.options.maxBodyBytes);
      if (read.kind === 'aborted') return;
      if (read.kind === 'too-large') {
        // The rest of the body is never read: close the connection rather than drain it.
        res.setHeader('connection', 'close');
        ex.json(413, TOO_LARGE);
        return;
      }
      seen.body = read.data.toString('utf8');
      body = parseJsonBody(read.data, req.headers['content-type']);
      // FastAPI decodes the JSON before resolving dependencies: bad JSON is a 422 even unsigned.
      if (body.kind === 'invalid') {
        ex.json(422, validationBody([body.issue]));
        return;
      }
    }

    const endpoint = this.endpoints[route.endpoint];
    const input = {
      params: rewriteQuery(this.options.deviations, route.endpoint, new URLSearchParams(query)),
      ...(hotelId === undefined ? {} : { hotelId }),
      ...(body === undefined ? {} : { body }),
    };
    if (header === undefined) {
      const issues: ValidationIssue[] = [MISSING_AUTHORIZATION];
      endpoint(input, issues);
      this.recordAuthFailure('missing');
      ex.json(422, validationBody(issues));
      return;
    }

    const verdict = this.auth.authenticate(header, this.now());
    caller.companyKey = verdict.ok ? verdict.company.key : undefined;
    if (!verdict.ok) {
      this.recordAuthFailure(verdict.reason);
      ex.json(
        verdict.reason === 'inactive' ? 403 : 401,
        verdict.reason === 'inactive' ? INACTIVE_COMPANY : INVALID_CREDENTIALS,
      );
      return;
    }

    const limit = this.faultsOf(verdict.company.key).rateLimit;
    if (limit !== undefined) {
      const retryAfter = this.limiter.take(verdict.company.key, limit, this.now());
      if (retryAfter > 0) {
        this.stats.rateLimited += 1;
        ex.json(429, TOO_MANY_REQUESTS, { 'retry-after': String(retryAfter) });
        return;
      }
    }

    const issues: ValidationIssue[] = [];
    const run = endpoint(input, issues);
    if (run === undefined) {
      ex.json(422, validationBody(issues));
      return;
    }
    if (ex.preempted()) return;
    await run(verdict.company, ex);
  }

  /** The key of the active company `header` authenticates as now, if any. */
  private signedBy(header: string | undefined): string | undefined {
    if (header === undefined) return undefined;
    const verdict = this.auth.authenticate(header, this.now());
    return verdict.ok ? verdict.company.key : undefined;
  }

  /** The fault knobs for a request of `companyKey` (the global ones without a company). */
  private faultsOf(companyKey: string | undefined): CompanyFaultSettings {
    const own = companyKey === undefined ? undefined : this.companyFaultSettings.get(companyKey);
    return faultsFor(this.faultSettings, own);
  }

  /**
   * Holds a request unanswered until {@link releaseHung} lets it go (its company no longer hangs,
   * or the simulator closes): then its connection is destroyed, counted as `lost`. The client
   * giving up ends it too. Its body is read and dropped, so that the request completes.
   */
  private hang(companyKey: string, req: IncomingMessage, res: ServerResponse, ex: Exchange): void {
    req.resume();
    const entry: HungRequest = {
      companyKey,
      release: () => {
        if (!this.hung.delete(entry)) return;
        res.off('close', entry.release);
        ex.drop();
      },
    };
    this.hung.add(entry);
    res.once('close', entry.release);
  }

  /** Releases the hung requests whose company no longer hangs (`all`: every one). */
  private releaseHung(all = false): void {
    for (const entry of [...this.hung]) {
      if (all || this.faultsOf(entry.companyKey).hang !== true) entry.release();
    }
  }

  private fail(res: ServerResponse, err: unknown): void {
    this.stats.internalErrors += 1;
    this.lastError = err;
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(INTERNAL_ERROR);
    } else {
      res.destroy();
    }
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  listen(port = 0, host = '127.0.0.1'): Promise<ListenResult> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        const address = this.server.address() as AddressInfo;
        const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
        const origin = `http://${hostPart}:${address.port}`;
        this.url = `${origin}${API_PREFIX}`;
        resolve({ url: this.url, origin, port: address.port });
      });
    });
  }

  close(): Promise<void> {
    this.releaseHung(true);
    for (const sleeper of this.sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.wake();
    }
    this.sleepers.clear();
    return new Promise((resolve) => {
      if (!this.server.listening) {
        resolve();
        return;
      }
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
      this.server.closeAllConnections();
    });
  }

  // ---- inspection and control -------------------------------------------------------------

  inspect(): SimulatorInspection {
    return { bookings: this.bookings(), requests: this.requests() };
  }

  bookings(filter: BookingFilter = {}): InspectedBooking[] {
    return this.store
      .all()
      .filter((b) => filter.companyKey === undefined || b.companyKey === filter.companyKey)
      .filter((b) => filter.status === undefined || b.status === filter.status)
      .filter((b) => {
        const wanted = Object.entries(filter.customFields ?? {});
        if (wanted.length === 0) return true;
        const given = b.request.customFields;
        return (
          typeof given === 'object' && given !== null && wanted.every(([k, v]) => given[k] === v)
        );
      })
      .map(inspectBooking);
  }

  requests(): RequestStats {
    return structuredClone(this.stats);
  }

  reset(): void {
    this.store.reset();
    this.stats = emptyStats();
    this.limiter.reset();
    this.activeOverride.clear();
    this.faultSettings = this.initialFaults();
    this.companyFaultSettings = new Map(this.options.companyFaults);
    this.releaseHung();
    this.auth.replaceAll(this.options.companies);
    this.prng = createPrng(this.options.seed);
    this.skewMs = initialSkewMs(this.options.deviations);
    this.hostileMode.reset();
  }

  hostileRules(): HostileRule[] {
    return this.hostileMode.rules();
  }

  addHostileRule(rule: HostileRule | null): HostileRule[] {
    if (rule === null) this.hostileMode.clear();
    else this.hostileMode.add(rule);
    return this.hostileMode.rules();
  }

  hostileApplied(): ReturnType<HostileMode['applied']> {
    return this.hostileMode.applied();
  }

  faults(): FaultSettings {
    return structuredClone(this.faultSettings);
  }

  setFaults(patch: FaultPatch): FaultSettings {
    this.faultSettings = patchFaults(this.faultSettings, patch);
    // A new global limit starts the buckets it governs afresh, not those of companies' own limits.
    if (patch.rateLimit !== undefined)
      this.limiter.reset((key) => this.companyFaultSettings.get(key)?.rateLimit !== undefined);
    return this.faults();
  }

  companyFaults(): CompanyFaults {
    return structuredClone(Object.fromEntries(this.companyFaultSettings));
  }

  setCompanyFaults(key: string, patch: CompanyFaultPatch | null): CompanyFaultSettings {
    const current = this.companyFaultSettings.get(key) ?? {};
    const next = patch === null ? {} : patchCompanyFaults(current, patch);
    // Clearing is always allowed (a revoked company's too); setting needs the company.
    if (Object.keys(next).length > 0 && !this.auth.list().some((c) => c.key === key)) {
      throw new RangeError(`No company ${key}`);
    }
    if (Object.keys(next).length === 0) this.companyFaultSettings.delete(key);
    else this.companyFaultSettings.set(key, next);
    // Its own limit changed (set, replaced or cleared): its next request starts a fresh bucket.
    if (next.rateLimit !== current.rateLimit) this.limiter.forget(key);
    this.releaseHung();
    return structuredClone(next);
  }

  hangingRequests(): Record<string, number> {
    const counts = new Map<string, number>();
    for (const { companyKey } of this.hung)
      counts.set(companyKey, (counts.get(companyKey) ?? 0) + 1);
    return Object.fromEntries(counts);
  }

  companies(): CompanyView[] {
    return this.auth.list().map(({ key, active }) => ({ key, active }));
  }

  upsertCompany(change: { key: string; secret?: string; active?: boolean }): CompanyView {
    const { key, active } = this.auth.upsert(change);
    return { key, active };
  }

  revokeCompany(key: string): boolean {
    return this.auth.revoke(key);
  }

  setPropertyActive(id: number, active: boolean): boolean {
    const property = findProperty(id);
    if (property === undefined) return false;
    if (active === !property.initiallyInactive) this.activeOverride.delete(id);
    else this.activeOverride.set(id, active);
    return true;
  }

  deactivateProperty(id: number): boolean {
    return this.setPropertyActive(id, false);
  }

  inactiveProperties(): number[] {
    return allProperties()
      .filter((p) => !this.isPropertyActive(p))
      .map((p) => p.id);
  }

  clockSkewMs(): number {
    return this.skewMs;
  }

  setClockSkew(ms: number): void {
    this.skewMs = ms;
  }
}

export type { CompanyAccount };
