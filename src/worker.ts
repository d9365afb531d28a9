/**
 * `npm run worker` (the container's command): a booking worker configured only by the environment
 * (src/config/), with JSON logs, Prometheus `/metrics`, `/healthz` and `/readyz`
 * (src/observability/). Start-up while Temporal does not answer, the drain on the first SIGTERM or
 * SIGINT (a second exits at once, 128 + its number) and the exit codes (0 drained, 1 failed, 2 a
 * bad variable, a refused connection or a taken port): docs/operating.md#the-worker.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import { temporalConnectionFailure, temporalConnectionOptions } from './client/connection-options';
import { startupRetryDelayMs, temporalNotAnswering } from './client/temporal-not-answering';
import { createDataConverter } from './codec/data-converter';
import { ConfigError } from './config';
import { loadWorkerConfig, type WorkerConfig } from './worker-config';
import { createWorkers, logPolling, runTogether, WorkerProcess } from './worker-process';
import {
  createBookingCounter,
  failingOrderCount,
  oldestStartTime,
} from './observability/booking-counts';
import {
  buildHealthServer,
  createReadinessProbe,
  startEventLoopWatchdog,
} from './observability/health';
import { createLogger } from './observability/logger';
import { buildMetricsServer, createWorkerMetrics } from './observability/metrics';
import { PortInUseError, whenPortInUse } from './observability/ports';
import { installTemporalRuntimeWithMetrics, sdkMetricsUrl } from './observability/runtime';

/** Visibility counts (a scrape) give up after this long, ms. */
const VISIBILITY_TIMEOUT_MS = 5_000;

const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

async function main(): Promise<number> {
  let config: WorkerConfig;
  try {
    config = loadWorkerConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    createLogger().fatal({ problems: err.problems }, 'invalid configuration');
    return 2;
  }
  const root = rootLogger(config);
  const log = root.child({ source: 'worker' });
  if (config.encryption.warning) log.warn(config.encryption.warning);
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });

  // Before anything that touches Temporal: the first connection installs a default runtime.
  let sdkMetricsPort: number;
  try {
    sdkMetricsPort = await installTemporalRuntimeWithMetrics({
      logger: root,
      level: config.logLevel,
      port: config.worker.metricsPort > 0 ? config.worker.temporalMetricsPort : 0,
    });
  } catch (err) {
    if (!(err instanceof PortInUseError)) throw err;
    return exitCodeOf(err, log);
  }

  const proc = new WorkerProcess();
  onShutdownSignals(config, proc, log);

  const watchdog = startEventLoopWatchdog();
  let exitCode = 0;
  try {
    // Health first: liveness answers during start-up, and readiness says why it is not yet ready.
    await startHealth(config, proc, watchdog, log);
    const untilAnswered = untilTemporalAnswers(config.temporal.address, proc, log);
    const conn = await untilAnswered(() => connectTemporal(config));
    proc.connection = conn;
    const metrics = await startMetrics(config, conn, sdkMetricsPort, proc, log);
    await createWorkers(config, conn, metrics, proc, log, untilAnswered);
    if (proc.draining) {
      log.info('shutdown requested during start-up: not polling');
    } else {
      logPolling(config, log);
      await runTogether(proc.workers());
    }
  } catch (err) {
    if (proc.draining && proc.startup.signal.aborted) {
      log.info('shutdown requested during start-up: not polling');
    } else {
      exitCode = exitCodeOf(err, log);
    }
  } finally {
    proc.draining = true;
    await proc.close();
    watchdog.stop();
  }
  log.info({ exitCode }, 'worker stopped');
  Runtime.instance().flushLogs();
  return exitCode;
}

/** The root logger: the supplier accounts' secrets and the order events' scrubbed from every line. */
function rootLogger(config: WorkerConfig): Logger {
  const secrets = config.suppliers.map((a) => a.hotelApi.secret);
  if (config.orderEvents) secrets.push(config.orderEvents.secret);
  return createLogger({ level: config.logLevel, secrets });
}

/** The first SIGTERM or SIGINT drains; a second exits at once (see the file's comment). */
function onShutdownSignals(config: WorkerConfig, proc: WorkerProcess, log: Logger): void {
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (proc.draining) {
      log.warn({ signal }, 'second signal: exiting without waiting for running activities');
      Runtime.instance().flushLogs();
      process.exit(SIGNAL_EXIT[signal]);
    }
    proc.draining = true;
    log.info(
      {
        signal,
        shutdownGraceMs: config.worker.shutdownGraceMs,
        activitiesInFlight: proc.worker?.getStatus().numInFlightActivities ?? 0,
      },
      'shutdown requested: not ready, polling stops, running activities may finish',
    );
    proc.stopPolling();
    proc.startup.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function startHealth(
  config: WorkerConfig,
  proc: WorkerProcess,
  watchdog: ReturnType<typeof startEventLoopWatchdog>,
  log: Logger,
): Promise<void> {
  if (config.worker.healthPort <= 0) return;
  proc.health = buildHealthServer({
    liveness: watchdog.check,
    readiness: createReadinessProbe({
      workerStatus: () => proc.worker?.getStatus(),
      waitingFor: () => proc.waitingFor,
      draining: () => proc.draining,
      pingTemporal: async (timeoutMs) => {
        const c = proc.connection;
        if (c === undefined) throw new Error('not connected yet');
        await c.withDeadline(Date.now() + timeoutMs, () => c.workflowService.getSystemInfo({}));
      },
    }),
  });
  const port = config.worker.healthPort;
  const url = await proc.health
    .listen(port)
    .catch(whenPortInUse('HEALTH_PORT', port, 'health endpoints /healthz, /readyz'));
  log.info({ url: `${url}/readyz` }, 'health endpoints listening');
}

/** The worker's connection; TLS or credentials refused: a ConfigError saying what to change. */
async function connectTemporal(config: WorkerConfig): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  } catch (err) {
    const explained = await temporalConnectionFailure(err, config.temporal);
    throw explained ? new ConfigError([explained]) : err;
  }
}

/**
 * Runs a start-up step that needs Temporal until Temporal answers: a server that is down or not up
 * yet is waited for (one warning, the reason on `/readyz`), not exited into a supervisor's
 * back-off. A refusal (TLS, credentials, an unknown namespace) stops the start; so does a signal.
 */
function untilTemporalAnswers(address: string, proc: WorkerProcess, log: Logger) {
  let since: number | undefined;
  return async <T>(step: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await step();
        if (since !== undefined) {
          log.info(
            { address, waitedMs: Date.now() - since },
            `Temporal answered after ${Math.round((Date.now() - since) / 1000)} s`,
          );
          since = undefined;
          proc.waitingFor = undefined;
        }
        return result;
      } catch (err) {
        const reason = temporalNotAnswering(err);
        if (reason === undefined || proc.startup.signal.aborted) throw err;
        proc.waitingFor = `Temporal unreachable at ${address} (${reason})`;
        if (since === undefined) {
          since = Date.now();
          log.warn(
            { address, reason },
            `${proc.waitingFor}: waiting for it; if it should be up, check TEMPORAL_ADDRESS`,
          );
        }
        await sleep(startupRetryDelayMs(attempt), undefined, { signal: proc.startup.signal });
      }
    }
  };
}

/** Our metrics (with the fleet-wide counts from visibility) and, when on, their endpoint. */
async function startMetrics(
  config: WorkerConfig,
  conn: NativeConnection,
  sdkMetricsPort: number,
  proc: WorkerProcess,
  log: Logger,
) {
  const visibility = new Client({
    connection: conn,
    namespace: config.temporal.namespace,
    // The endpoint's delivery counts its failing orders in its memo, encrypted like any payload.
    dataConverter: createDataConverter(config.encryption),
  });
  const withDeadline = <T>(fn: () => Promise<T>) =>
    conn.withDeadline(Date.now() + VISIBILITY_TIMEOUT_MS, fn);
  const bookingCounter = createBookingCounter({
    maxAgeMs: config.worker.visibilityRefreshMs,
    count: async (query) => (await withDeadline(() => visibility.workflow.count(query))).count,
    oldestStart: (query) =>
      withDeadline(() => oldestStartTime(visibility.workflow.list({ query }))),
    failingOrders: (query) =>
      withDeadline(() => failingOrderCount(visibility.workflow.list({ query }))),
  });
  const metrics = createWorkerMetrics({
    bookingCounter,
    orderEventsFailing: async () => (await bookingCounter.get()).orderEventsFailing,
    onCountError: onceUntilRecovered(log),
  });
  if (config.worker.metricsPort > 0) {
    proc.metricsServer = buildMetricsServer({
      registry: metrics.registry,
      ...(sdkMetricsPort > 0 ? { sdkMetricsUrl: sdkMetricsUrl(sdkMetricsPort) } : {}),
    });
    const port = config.worker.metricsPort;
    const url = await proc.metricsServer
      .listen(port)
      .catch(whenPortInUse('METRICS_PORT', port, 'Prometheus /metrics'));
    log.info(
      { url: `${url}/metrics`, ...(sdkMetricsPort > 0 ? { sdkMetricsPort } : {}) },
      'metrics listening',
    );
  }
  return metrics;
}

/** The exit code of a failed start or run, logged in one line. */
function exitCodeOf(err: unknown, log: Logger): number {
  if (err instanceof PortInUseError) {
    log.fatal({ variable: err.setting, port: err.port }, err.message);
    return 2;
  }
  if (err instanceof ConfigError) {
    // TLS or credentials refused: exit 2 like a bad variable.
    log.fatal({ problems: err.problems }, err.problems[0] ?? 'invalid configuration');
    return 2;
  }
  log.fatal({ err }, 'worker failed');
  return 1;
}

/** Logs the first failure of a series, not every failed scrape. */
function onceUntilRecovered(log: Logger): (err: unknown) => void {
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  return (err) => {
    if (!failing) log.warn({ err }, 'counting bookings in Temporal visibility failed');
    failing = true;
    // A quiet minute without failures re-arms the warning.
    clearTimeout(timer);
    timer = setTimeout(() => (failing = false), 60_000).unref();
  };
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
