/**
 * The worker process's Temporal runtime: logs through our pino logger (the native core's too), the
 * SDK's Prometheus exporter on loopback (served through our `/metrics`), and no signal handlers
 * (src/worker.ts owns SIGTERM/SIGINT, so readiness flips before polling stops). Must run before
 * the first `NativeConnection` or `Worker`, which installs a default runtime.
 */
import { Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Env } from '../config';
import { temporalLogger, temporalLogLevel } from './logger';
import { freeLoopbackPort, isAddressInUse, whenPortInUse } from './ports';

export interface TemporalRuntimeOptions {
  readonly logger: Logger;
  readonly level: Env['LOG_LEVEL'];
  /** The SDK's Prometheus exporter on 127.0.0.1: a port, 0 (off), or `'free'` (any free one). */
  readonly port: number | 'free';
}

/** `http://127.0.0.1:<port>/metrics`, where the SDK's exporter answers. */
export function sdkMetricsUrl(port: number): string {
  return `http://127.0.0.1:${port}/metrics`;
}

/**
 * Installs the runtime (once per process) with the SDK's exporter on `port`: a fixed port that is
 * taken throws {@link PortInUseError} naming `TEMPORAL_METRICS_PORT`; `'free'` takes a free
 * loopback port, again if another process grabs it first. Resolves to the port used (0 = off).
 */
export async function installTemporalRuntimeWithMetrics(
  options: TemporalRuntimeOptions,
): Promise<number> {
  if (options.port !== 'free') {
    try {
      install(options, options.port);
    } catch (err) {
      const what = "the SDK's metrics exporter; unset it for a free one";
      whenPortInUse('TEMPORAL_METRICS_PORT', options.port, what, '127.0.0.1')(err);
    }
    return options.port;
  }
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    try {
      install(options, port);
      return port;
    } catch (err) {
      // Taken between our probe and the exporter's bind: another free port.
      if (!isAddressInUse(err) || attempt >= 5) throw err;
    }
  }
}

function install(options: TemporalRuntimeOptions, port: number): Runtime {
  const level = temporalLogLevel(options.level);
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
