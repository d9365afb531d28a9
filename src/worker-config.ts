/**
 * The worker's configuration: the product's ({@link loadConfig}) checked against what the
 * workflows' activity options allow (an HTTP timeout the activity would cut short is refused,
 * naming its variable), with the shutdown grace derived from the booking timeout when unset.
 */
import { ConfigError, loadConfig } from './config';
import { clientTimeoutProblems, shutdownGraceMsFor } from './workflows/activity-options';

export function loadWorkerConfig(source: NodeJS.ProcessEnv = process.env) {
  let config: ReturnType<typeof loadConfig> | undefined;
  let problems: string[] = [];
  try {
    config = loadConfig(source);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems = [...err.problems];
  }
  const timeouts = config?.hotelApi.timeouts;
  if (timeouts) problems.push(...clientTimeoutProblems(timeouts));
  if (!config || problems.length > 0) throw new ConfigError(problems);
  const shutdownGraceMs =
    config.worker.shutdownGraceMs ?? shutdownGraceMsFor(config.hotelApi.timeouts.bookingMs);
  return { ...config, worker: { ...config.worker, shutdownGraceMs } };
}

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
