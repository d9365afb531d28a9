/**
 * Liveness (`/healthz`: a restart is the cure for a stuck event loop) and readiness (`/readyz`)
 * over HTTP, JSON bodies, for orchestrators and compose healthchecks: docs/operating.md#the-worker.
 */
import { createServer, type ServerResponse } from 'node:http';
import { smallServer, type SmallServer } from './http-server';

/** What `/readyz` reports. */
export interface Readiness {
  readonly ready: boolean;
  /** Why not ready (absent when ready). */
  readonly reason?: string;
  /** Details for people: worker state, poller states, Temporal round trip. */
  readonly [detail: string]: unknown;
}

/** What `/healthz` reports. */
export interface Liveness {
  readonly live: boolean;
  readonly reason?: string;
  readonly [detail: string]: unknown;
}

/** How often the watchdog timer ticks, ms. */
const WATCHDOG_TICK_MS = 1_000;
/** A tick later than this means the loop is stuck, ms. */
const MAX_LOOP_DELAY_MS = 10_000;

/**
 * Measures how late a repeating (unref'd) timer fires: a loop blocked for good fails the probe's
 * own timeout; this catches one blocked for long stretches that answers in between.
 */
export function startEventLoopWatchdog() {
  let last = performance.now();
  let worstDelayMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const delay = Math.max(0, now - last - WATCHDOG_TICK_MS);
    worstDelayMs = Math.max(delay, worstDelayMs * 0.5); // decays: an old stall is forgiven
    last = now;
  }, WATCHDOG_TICK_MS);
  timer.unref();
  return {
    check(): Liveness {
      // A tick that is overdue right now counts as well as one that came late.
      const overdue = Math.max(0, performance.now() - last - WATCHDOG_TICK_MS);
      const delay = Math.round(Math.max(worstDelayMs, overdue));
      return delay > MAX_LOOP_DELAY_MS
        ? { live: false, reason: `event loop stalled for ${delay} ms`, eventLoopDelayMs: delay }
        : { live: true, eventLoopDelayMs: delay, uptimeSeconds: Math.round(process.uptime()) };
    },
    stop() {
      clearInterval(timer);
    },
  };
}

type WorkerStates = Readonly<
  Record<'runState' | 'workflowPollerState' | 'activityPollerState', string>
>;

export interface ReadinessProbeOptions {
  /** The worker's state now: `worker.getStatus()`, or undefined before it exists. */
  readonly workerStatus: () => WorkerStates | undefined;
  /** A cheap round trip to the Temporal frontend; rejects when it is unreachable. */
  readonly pingTemporal: (timeoutMs: number) => Promise<void>;
  /** True once shutdown began: not ready, whatever the rest says. */
  readonly draining: () => boolean;
  /** Before the worker exists: what its start-up waits for (e.g. a Temporal that does not answer). */
  readonly waitingFor?: () => string | undefined;
}

/** A ping result is reused for this long, ms (probes of several kinds and replicas). */
const PING_CACHE_MS = 3_000;
const PING_TIMEOUT_MS = 2_000;

/** Builds the readiness check used by `/readyz`. */
export function createReadinessProbe(options: ReadinessProbeOptions): () => Promise<Readiness> {
  let last: { at: number; error?: string; rttMs?: number } | undefined;
  let inFlight: Promise<NonNullable<typeof last>> | undefined;

  function ping(): Promise<NonNullable<typeof last>> {
    const now = Date.now();
    if (last && now - last.at < PING_CACHE_MS) return Promise.resolve(last);
    inFlight ??= options
      .pingTemporal(PING_TIMEOUT_MS)
      .then(
        () => ({ at: Date.now(), rttMs: Date.now() - now }),
        (err: unknown) => ({
          at: Date.now(),
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .then((result) => (last = result))
      .finally(() => (inFlight = undefined));
    return inFlight;
  }

  return async () => {
    if (options.draining()) return { ready: false, reason: 'draining: shutdown in progress' };
    const status = options.workerStatus();
    if (status === undefined) {
      return {
        ready: false,
        reason: `starting: ${options.waitingFor?.() ?? 'worker not created yet'}`,
      };
    }
    const worker = {
      state: status.runState,
      workflowPoller: status.workflowPollerState,
      activityPoller: status.activityPollerState,
    };
    if (status.runState !== 'RUNNING') {
      return { ready: false, reason: `worker is ${status.runState}`, worker };
    }
    if (status.workflowPollerState === 'FAILED' || status.activityPollerState === 'FAILED') {
      return { ready: false, reason: 'a worker poller failed', worker };
    }
    const temporal = await ping();
    if (temporal.error !== undefined) {
      return { ready: false, reason: `Temporal unreachable: ${temporal.error}`, worker };
    }
    return { ready: true, worker, temporalRttMs: temporal.rttMs };
  };
}

export interface HealthServerOptions {
  readonly liveness: () => Liveness;
  readonly readiness: () => Promise<Readiness>;
}

/** `GET /healthz`, `GET /readyz`; anything else is 404. */
export function buildHealthServer(options: HealthServerOptions): SmallServer {
  const send = (res: ServerResponse, ok: boolean, body: unknown) => {
    res
      .writeHead(ok ? 200 : 503, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
      })
      .end(`${JSON.stringify(body)}\n`);
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') {
      const live = options.liveness();
      send(res, live.live, live);
    } else if (req.method === 'GET' && path === '/readyz') {
      options.readiness().then(
        (ready) => send(res, ready.ready, ready),
        (err: unknown) =>
          send(res, false, {
            ready: false,
            reason: `readiness check failed: ${err instanceof Error ? err.message : String(err)}`,
          }),
      );
    } else {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":"not found","routes":["/healthz","/readyz"]}\n');
    }
  });
  return smallServer(server);
}
