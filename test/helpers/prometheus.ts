/**
 * Prometheus's binaries for the alert tests: Debian's `prometheus` package (installed by .ci/run
 * when missing), found on PATH or in PROMETHEUS_BIN_DIR. Without them the tests that need them
 * skip with one line.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

export type Tool =
  | { readonly path: string; readonly skip?: undefined }
  | { readonly path?: undefined; readonly skip: string };

export function findPrometheusTool(name: 'promtool' | 'prometheus'): Tool {
  const dirs = [
    ...(process.env.PROMETHEUS_BIN_DIR ? [process.env.PROMETHEUS_BIN_DIR] : []),
    ...(process.env.PATH ?? '').split(':'),
  ];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return { path };
    } catch {
      // not here
    }
  }
  return {
    skip: `no ${name} on PATH: install Debian's prometheus package (bash .ci/run does) or set PROMETHEUS_BIN_DIR`,
  };
}
