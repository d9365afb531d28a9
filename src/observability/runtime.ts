/**
 * Installs the Temporal runtime for the worker process: logs through our pino logger (the native
 * core's too, forwarded), the SDK's Prometheus exporter on loopback (our `/metrics` serves it,
 * see metrics.ts), and no signal handlers of its own (src/worker.ts owns SIGTERM/SIGINT, so that
 * readiness flips and the drain is logged before the worker stops polling).
 *
 * Must run before anything creates a `NativeConnection` or a `Worker`: the first of those
 * installs a default runtime, after which `Runtime.install` throws.
 */
import { Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Env } from '../config';
import { temporalLogger, temporalLogLevel } from './logger';

export interface TemporalRuntimeOptions {
  readonly logger: Logger;
  readonly level: Env['LOG_LEVEL'];
  /**
   * Port of the SDK's Prometheus exporter, bound on 127.0.0.1. 0 turns the SDK's metrics off.
   * @default 0
   */
  readonly sdkMetricsPort?: number;
}

/** `http://127.0.0.1:<port>/metrics`, where the SDK's exporter answers. */
export function sdkMetricsUrl(port: number): string {
  return `http://127.0.0.1:${port}/metrics`;
}

/** Installs the runtime (once per process). */
export function installTemporalRuntime(options: TemporalRuntimeOptions): Runtime {
  const level = temporalLogLevel(options.level);
  const port = options.sdkMetricsPort ?? 0;
  return Runtime.install({
    logger: temporalLogger(options.logger.child({ source: 'temporal' }), level),
    shutdownSignals: [],
    telemetryOptions: {
      // Core's own lines at our level; its third-party crates (gRPC, HTTP) only when they fail.
      logging: { filter: { core: level, other: 'ERROR' }, forward: {} },
      ...(port > 0 ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } } } : {}),
    },
  });
}
