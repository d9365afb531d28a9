/**
 * Finds Prometheus and promtool (Debian's `prometheus` package ships both) and Alertmanager and
 * amtool (Debian's `prometheus-alertmanager`), or installs the package once where this machine
 * may: as root with apt. Nothing is downloaded otherwise; callers skip what needs them with the
 * one line in `reason`.
 */
import { BUILD_OUTPUT_BYTES, execFileAsync, findOnPath } from './binary-cache';

export interface PrometheusBinaries {
  readonly prometheus: string;
  readonly promtool: string;
}

export interface AlertmanagerBinaries {
  readonly alertmanager: string;
  readonly amtool: string;
}

type Lookup<T> =
  ({ readonly found: true } & T) | { readonly found: false; readonly reason: string };
export type PrometheusLookup = Lookup<PrometheusBinaries>;
export type AlertmanagerLookup = Lookup<AlertmanagerBinaries>;

export interface FindPrometheusOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Install with apt when missing (root only). @default true */
  readonly install?: boolean;
  /** Told what is being installed, and how long it took. @default console.error */
  readonly log?: (line: string) => void;
}

/** A Debian package and the binaries it ships, each under any of its names (first found wins). */
interface DebianTools<K extends string> {
  readonly pkg: string;
  /** Binary → its names on PATH: Debian renames some (`prometheus-alertmanager`). */
  readonly binaries: Readonly<Record<K, readonly string[]>>;
}

const PROMETHEUS: DebianTools<keyof PrometheusBinaries> = {
  pkg: 'prometheus',
  binaries: { prometheus: ['prometheus'], promtool: ['promtool'] },
};
const ALERTMANAGER: DebianTools<keyof AlertmanagerBinaries> = {
  pkg: 'prometheus-alertmanager',
  binaries: { alertmanager: ['prometheus-alertmanager', 'alertmanager'], amtool: ['amtool'] },
};

function onPath<K extends string>(
  tools: DebianTools<K>,
  env: NodeJS.ProcessEnv,
): Record<K, string> | undefined {
  const found = Object.entries<readonly string[]>(tools.binaries).map(([key, names]) => [
    key,
    names.map((n) => findOnPath(n, env)).find((p) => p !== undefined),
  ]);
  return found.every(([, path]) => path !== undefined)
    ? (Object.fromEntries(found) as Record<K, string>)
    : undefined;
}

async function aptInstall(pkg: string, env: NodeJS.ProcessEnv): Promise<void> {
  const apt = (args: string[]) =>
    execFileAsync('apt-get', args, {
      env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: BUILD_OUTPUT_BYTES,
    });
  // Test files run in parallel processes: one may hold dpkg's lock while another installs.
  const install = [
    '-o',
    'DPkg::Lock::Timeout=300',
    'install',
    '-y',
    '--no-install-recommends',
    pkg,
  ];
  try {
    await apt(install);
  } catch {
    // A fresh image has no package lists yet.
    await apt(['-o', 'DPkg::Lock::Timeout=300', 'update']);
    await apt(install);
  }
}

const installing = new Map<string, Promise<void>>();

async function findDebianTools<K extends string>(
  tools: DebianTools<K>,
  options: FindPrometheusOptions,
): Promise<Lookup<Record<K, string>>> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => console.error(line));
  const names = Object.keys(tools.binaries).join('/');
  const present = onPath(tools, env);
  if (present) return { found: true as const, ...present };
  const canInstall =
    (options.install ?? true) && process.getuid?.() === 0 && findOnPath('apt-get', env);
  if (!canInstall) {
    return {
      found: false,
      reason: `${names} not on PATH and not installable here (needs root and apt-get): install Debian's "${tools.pkg}" package`,
    };
  }
  const started = Date.now();
  log(`installing Debian package "${tools.pkg}" (${names}) with apt-get, once`);
  try {
    let run = installing.get(tools.pkg);
    if (!run) installing.set(tools.pkg, (run = aptInstall(tools.pkg, env)));
    await run;
  } catch (err) {
    installing.delete(tools.pkg);
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    return { found: false, reason: `apt-get install ${tools.pkg} failed: ${first}` };
  }
  log(`installed "${tools.pkg}" in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const installed = onPath(tools, env);
  return installed
    ? { found: true as const, ...installed }
    : {
        found: false,
        reason: `apt-get installed "${tools.pkg}" but the binaries are not on PATH`,
      };
}

/** `prometheus` and `promtool` on PATH, else installed by apt (root), else why not. */
export function findPrometheus(options: FindPrometheusOptions = {}): Promise<PrometheusLookup> {
  return findDebianTools(PROMETHEUS, options);
}

/**
 * Alertmanager (Debian's `prometheus-alertmanager`, upstream's `alertmanager`) and `amtool` on
 * PATH, else installed by apt (root), else why not.
 */
export function findAlertmanager(options: FindPrometheusOptions = {}): Promise<AlertmanagerLookup> {
  return findDebianTools(ALERTMANAGER, options);
}
