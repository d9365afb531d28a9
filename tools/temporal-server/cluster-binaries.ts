/**
 * The binaries of the production topology, built once from their Go modules and cached beside the
 * Temporal CLI (`~/.cache/hotel-booking-orchestrator/temporal-server/<version>/`): the Temporal
 * server, its SQL schema tool (schemas embedded) and the Temporal UI server. No replace directives
 * in these module versions, so `go install module@version` builds exactly the release.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, commandTail, execFileAsync, goInstall, isExecutable } from './binary-cache';

/** The server release docker-compose pins and the CLI v1.5.1 embeds. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** The newest UI server Go 1.26.8 builds (v2.55+ need a newer Go). */
export const TEMPORAL_UI_VERSION = '2.54.1';

export interface ClusterBinary {
  readonly name: 'temporal-server' | 'temporal-sql-tool' | 'temporal-ui-server';
  /** `go install` target. */
  readonly module: string;
  /** The binary `go install` writes (the last path element of the package). */
  readonly goBinary: string;
  /** Environment variable that points at an existing binary instead. */
  readonly envVar: string;
  /** About how long a cold build takes on 2 busy cores (measured here). */
  readonly typicalBuild: string;
}

export const CLUSTER_BINARIES: readonly ClusterBinary[] = [
  {
    name: 'temporal-server',
    module: `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
    goBinary: 'server',
    envVar: 'TEMPORAL_SERVER_PATH',
    typicalBuild: 'about 10 minutes',
  },
  {
    name: 'temporal-sql-tool',
    module: `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    goBinary: 'sql',
    envVar: 'TEMPORAL_SQL_TOOL_PATH',
    typicalBuild: 'about 1 minute after the server',
  },
  {
    name: 'temporal-ui-server',
    module: `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`,
    goBinary: 'server',
    envVar: 'TEMPORAL_UI_SERVER_PATH',
    typicalBuild: 'about 2 minutes',
  },
];

/** `<cache>/temporal-server/<version>/`. */
export function clusterCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'temporal-server', TEMPORAL_SERVER_VERSION);
}

export type ClusterBinaryPaths = Record<ClusterBinary['name'], string>;

/** Where each binary is, or undefined for the ones not built yet (no build started). */
export function findClusterBinaries(
  env: NodeJS.ProcessEnv = process.env,
): Partial<ClusterBinaryPaths> {
  const found: Partial<ClusterBinaryPaths> = {};
  for (const b of CLUSTER_BINARIES) {
    const fromEnv = env[b.envVar];
    const path = fromEnv || join(clusterCacheDir(env), b.name);
    if (isExecutable(path)) found[b.name] = path;
  }
  return found;
}

export interface EnsureClusterBinariesOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** @default console.error */
  readonly log?: (line: string) => void;
}

export class ClusterBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterBuildError';
  }
}

/**
 * Finds the three binaries, building the missing ones with `go install` (GOTOOLCHAIN=local,
 * GOBIN in a temporary directory, then an atomic rename: an interrupted or concurrent build never
 * leaves a half-written binary). Says what it builds and how long each build took.
 */
export async function ensureClusterBinaries(
  options: EnsureClusterBinariesOptions = {},
): Promise<ClusterBinaryPaths> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((l: string) => console.error(l));
  const found = findClusterBinaries(env);
  const missing = CLUSTER_BINARIES.filter((b) => !found[b.name]);
  if (missing.length > 0) {
    for (const b of missing) {
      if (env[b.envVar]) {
        throw new ClusterBuildError(
          `${b.envVar}=${env[b.envVar]}: not an executable file; unset it to build ${b.module}`,
        );
      }
    }
    try {
      await execFileAsync('go', ['version'], { env });
    } catch {
      throw new ClusterBuildError(
        `Go is needed once to build ${missing.map((b) => b.name).join(', ')} ` +
          `(${missing.map((b) => b.module).join(', ')}); install Go >= 1.25 or set ` +
          missing.map((b) => b.envVar).join(' / '),
      );
    }
    const dir = clusterCacheDir(env);
    mkdirSync(dir, { recursive: true });
    log(
      `First start on this machine: building ${missing.map((b) => `${b.name} (${b.typicalBuild})`).join(', ')} ` +
        `from their Go modules into ${dir}; later starts reuse them.`,
    );
    for (const b of missing) {
      const target = join(dir, b.name);
      const started = Date.now();
      log(`  building ${b.name}: go install ${b.module} ...`);
      try {
        await goInstall({ module: b.module, goBinary: b.goBinary, target, env });
      } catch (err) {
        throw new ClusterBuildError(`go install ${b.module} failed: ${commandTail(err)}`);
      }
      log(`  built ${b.name} in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
      found[b.name] = target;
    }
  }
  return found as ClusterBinaryPaths;
}
