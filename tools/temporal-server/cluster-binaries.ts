/**
 * The Temporal binaries, built once from their Go modules and cached outside the checkout
 * (`~/.cache/hotel-booking-orchestrator/temporal-server/<release>/`, `temporal-ui/<version>/`):
 * the Temporal server (the dev server runs it on SQLite, the cluster on PostgreSQL), its SQL
 * schema tool (schemas embedded) and the Temporal UI server. No replace directives in these module
 * versions, so `go install module@version` builds exactly the release.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheRoot, commandTail, execFileAsync, goInstall, isExecutable } from './binary-cache';
import {
  GO_TOOLCHAIN,
  TEMPORAL_UI_VERSION,
  type TemporalRelease,
} from '../../src/shared/temporal-releases';
import { selectedRelease } from './selected-release';

export interface ClusterBinary {
  readonly name: 'temporal-server' | 'temporal-sql-tool' | 'temporal-ui-server';
  /** `go install` target. */
  readonly module: string;
  /** The binary `go install` writes (the last path element of the package). */
  readonly goBinary: string;
  /** Environment variable that points at an existing binary instead. */
  readonly envVar: string;
  /** Where it is cached: `<cache>/<dir>/<name>`. */
  readonly dir: string;
  /** About how long a cold build takes on 2 busy cores (measured here). */
  readonly typicalBuild: string;
}

/** The three binaries of `release` (the UI server has its own version line). */
export function clusterBinaries(release: TemporalRelease = selectedRelease()): ClusterBinary[] {
  return [
    {
      name: 'temporal-server',
      module: `go.temporal.io/server/cmd/server@v${release}`,
      goBinary: 'server',
      envVar: 'TEMPORAL_SERVER_PATH',
      dir: join('temporal-server', release),
      typicalBuild: 'about 10 minutes',
    },
    {
      name: 'temporal-sql-tool',
      module: `go.temporal.io/server/cmd/tools/sql@v${release}`,
      goBinary: 'sql',
      envVar: 'TEMPORAL_SQL_TOOL_PATH',
      dir: join('temporal-server', release),
      typicalBuild: 'about 1 minute after the server',
    },
    {
      name: 'temporal-ui-server',
      module: `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`,
      goBinary: 'server',
      envVar: 'TEMPORAL_UI_SERVER_PATH',
      dir: join('temporal-ui', TEMPORAL_UI_VERSION),
      typicalBuild: 'about 3 minutes',
    },
  ];
}

export type ClusterBinaryName = ClusterBinary['name'];
export type ClusterBinaryPaths = Record<ClusterBinaryName, string>;

function cachedPath(b: ClusterBinary, env: NodeJS.ProcessEnv): string {
  return join(cacheRoot(env), b.dir, b.name);
}

/** Where each binary is, or undefined for the ones not built yet (no build started). */
export function findClusterBinaries(
  env: NodeJS.ProcessEnv = process.env,
  release: TemporalRelease = selectedRelease(env),
): Partial<ClusterBinaryPaths> {
  const found: Partial<ClusterBinaryPaths> = {};
  for (const b of clusterBinaries(release)) {
    const path = env[b.envVar] || cachedPath(b, env);
    if (isExecutable(path)) found[b.name] = path;
  }
  return found;
}

export interface EnsureClusterBinariesOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** @default the release TEMPORAL_RELEASE names, the newest when unset */
  readonly release?: TemporalRelease;
  /** Only these (the dev server needs the server alone, and the UI when it serves one). */
  readonly only?: readonly ClusterBinaryName[];
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
  const release = options.release ?? selectedRelease(env);
  const found = findClusterBinaries(env, release);
  const wanted = clusterBinaries(release).filter(
    (b) => !options.only || options.only.includes(b.name),
  );
  const missing = wanted.filter((b) => !found[b.name]);
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
          `(${missing.map((b) => b.module).join(', ')}); install Go >= 1.21 (it fetches ${GO_TOOLCHAIN}) or set ` +
          missing.map((b) => b.envVar).join(' / '),
      );
    }
    log(
      `First start on this machine: building ${missing.map((b) => `${b.name} (${b.typicalBuild})`).join(', ')} ` +
        `from their Go modules (Temporal ${release}, UI ${TEMPORAL_UI_VERSION}, Go ${GO_TOOLCHAIN}) ` +
        `into ${cacheRoot(env)}; later starts reuse them.`,
    );
    for (const b of missing) {
      const target = cachedPath(b, env);
      mkdirSync(dirname(target), { recursive: true });
      const started = Date.now();
      log(`  building ${b.name}: go install ${b.module} ...`);
      try {
        await goInstall({
          module: b.module,
          goBinary: b.goBinary,
          target,
          env,
          toolchain: GO_TOOLCHAIN,
        });
      } catch (err) {
        throw new ClusterBuildError(`go install ${b.module} failed: ${commandTail(err)}`);
      }
      log(`  built ${b.name} in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
      found[b.name] = target;
    }
  }
  return found as ClusterBinaryPaths;
}
