/**
 * Finds Prometheus and promtool (Debian's `prometheus` package ships both), or installs that
 * package once where this machine may: as root with apt. Nothing is downloaded otherwise; callers
 * skip what needs them with the one line in `reason`.
 */
import { BUILD_OUTPUT_BYTES, execFileAsync, findOnPath } from './binary-cache';

export interface PrometheusBinaries {
  readonly prometheus: string;
  readonly promtool: string;
}

export type PrometheusLookup =
  | ({ readonly found: true } & PrometheusBinaries)
  | { readonly found: false; readonly reason: string };

export interface FindPrometheusOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Install with apt when missing (root only). @default true */
  readonly install?: boolean;
  /** Told what is being installed, and how long it took. @default console.error */
  readonly log?: (line: string) => void;
}

function onPath(env: NodeJS.ProcessEnv): PrometheusBinaries | undefined {
  const prometheus = findOnPath('prometheus', env);
  const promtool = findOnPath('promtool', env);
  return prometheus && promtool ? { prometheus, promtool } : undefined;
}

async function aptInstall(env: NodeJS.ProcessEnv): Promise<void> {
  const apt = (args: string[]) =>
    execFileAsync('apt-get', args, {
      env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: BUILD_OUTPUT_BYTES,
    });
  try {
    await apt(['install', '-y', '--no-install-recommends', 'prometheus']);
  } catch {
    // A fresh image has no package lists yet.
    await apt(['update']);
    await apt(['install', '-y', '--no-install-recommends', 'prometheus']);
  }
}

let installing: Promise<void> | undefined;

/** `prometheus` and `promtool` on PATH, else installed by apt (root), else why not. */
export async function findPrometheus(
  options: FindPrometheusOptions = {},
): Promise<PrometheusLookup> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => console.error(line));
  const present = onPath(env);
  if (present) return { found: true, ...present };
  const canInstall =
    (options.install ?? true) && process.getuid?.() === 0 && findOnPath('apt-get', env);
  if (!canInstall) {
    return {
      found: false,
      reason:
        'prometheus/promtool not on PATH and not installable here (needs root and apt-get): install Debian\'s "prometheus" package',
    };
  }
  const started = Date.now();
  log('installing Debian package "prometheus" (prometheus, promtool) with apt-get, once');
  try {
    await (installing ??= aptInstall(env));
  } catch (err) {
    installing = undefined;
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    return { found: false, reason: `apt-get install prometheus failed: ${first}` };
  }
  log(`installed "prometheus" in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const installed = onPath(env);
  return installed
    ? { found: true, ...installed }
    : { found: false, reason: 'apt-get installed "prometheus" but the binaries are not on PATH' };
}
