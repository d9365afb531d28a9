/**
 * Liveness and readiness over HTTP (JSON bodies), for orchestrators and compose healthchecks.
 * - `GET /healthz`: 200 unless the event loop stalled (a restart is the cure for a stuck loop).
 * - `GET /readyz`: 200 when the worker is RUNNING with its pollers up and the Temporal frontend
 *   answers a cheap RPC; else 503 with `{ ready: false, reason }`, as while starting and draining.
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

export interface EventLoopWatchdogOptions {
  /** How often the watchdog timer ticks, ms. @default 1_000 */
  readonly intervalMs?: number;
  /** A tick later than this means the loop is stuck, ms. @default 10_000 */
  readonly maxDelayMs?: number;
}

/**
 * Measures how late a repeating (unref'd) timer fires: a loop blocked for good fails the probe's
 * own timeout; this catches one blocked for long stretches that answers in between.
 */
export function startEventLoopWatchdog(options: EventLoopWatchdogOptions = {}) {
  const intervalMs = options.intervalMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  let last = performance.now();
  let worstDelayMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const delay = Math.max(0, now - last - intervalMs);
    worstDelayMs = Math.max(delay, worstDelayMs * 0.5); // decays: an old stall is forgiven
    last = now;
  }, intervalMs);
  timer.unref();
  return {
    check(): Liveness {
      // A tick that is overdue right now counts as well as one that came late.
      const overdue = Math.max(0, performance.now() - last - intervalMs);
      const delay = Math.round(Math.max(worstDelayMs, overdue));
      return delay > maxDelayMs
        ? { live: false, reason: `event loop stalled for ${delay} ms`, eventLoopDelayMs: delay }
        : { live: true, eventLoopDelayMs: delay, uptimeSeconds: Math.round(process.uptime()) };
    },
    stop() {
      clearInterval(timer);
    },
  };
}

export interface ReadinessProbeOptions {
  /** The worker's state now: `worker.getStatus()`, or undefined before it exists. */
  readonly workerStatus: () =>
    | {
        readonly runState: string;
        readonly workflowPollerState: string;
        readonly activityPollerState: string;
      }
    | undefined;
  /** A cheap round trip to the Temporal frontend; rejects when it is unreachable. */
  readonly pingTemporal: (timeoutMs: number) => Promise<void>;
  /** True once shutdown began: not ready, whatever the rest says. */
  readonly draining: () => boolean;
  /** Before the worker exists: what its start-up waits for (e.g. a Temporal that does not answer). */
  readonly waitingFor?: () => string | undefined;
  /** A ping result is reused for this long, ms (probes of several kinds and replicas). @default 3_000 */
  readonly cacheMs?: number;
  /** Ping timeout, ms. @default 2_000 */
  readonly timeoutMs?: number;
}

/** Builds the readiness check used by `/readyz`. */
export function createReadinessProbe(options: ReadinessProbeOptions): () => Promise<Readiness> {
  const cacheMs = options.cacheMs ?? 3_000;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let last: { at: number; error?: string; rttMs?: number } | undefined;
  let inFlight: Promise<NonNullable<typeof last>> | undefined;

  function ping(): Promise<NonNullable<typeof last>> {
    const now = Date.now();
    if (last && now - last.at < cacheMs) return Promise.resolve(last);
    inFlight ??= options
      .pingTemporal(timeoutMs)
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
