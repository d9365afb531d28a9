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
import { PortInUseError, freeLoopbackPort, isAddressInUse } from './ports';

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

/**
 * Installs the runtime with the SDK's exporter on `port`: a fixed port that is taken throws
 * {@link PortInUseError} naming `TEMPORAL_METRICS_PORT`; `'free'` takes a free loopback port (it
 * is only scraped through our own `/metrics`, so nobody needs to know it in advance) and retries
 * if another process grabs it first. Resolves to the port used (0 = off).
 */
export async function installTemporalRuntimeWithMetrics(
  options: Omit<TemporalRuntimeOptions, 'sdkMetricsPort'> & { readonly port: number | 'free' },
): Promise<number> {
  if (options.port !== 'free') {
    try {
      installTemporalRuntime({ ...options, sdkMetricsPort: options.port });
    } catch (err) {
      if (isAddressInUse(err)) {
        throw new PortInUseError(
          'TEMPORAL_METRICS_PORT',
          options.port,
          "the SDK's metrics exporter; unset it for a free one",
          '127.0.0.1',
        );
      }
      throw err;
    }
    return options.port;
  }
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    try {
      installTemporalRuntime({ ...options, sdkMetricsPort: port });
      return port;
    } catch (err) {
      // Taken between our probe and the exporter's bind: another free port.
      if (!isAddressInUse(err) || attempt >= 5) throw err;
    }
  }
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
