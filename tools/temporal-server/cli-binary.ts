/**
 * Finds the Temporal CLI (a client for the scripts and recipes: `temporal workflow …`,
 * `temporal operator …`; the dev server is the server binary, dev-server.ts), or builds it once.
 * Order: TEMPORAL_CLI_PATH, `temporal` on PATH, our cache, a Go build into the cache, and last the
 * SDK's own download (machines with internet). Every way that failed is listed in the error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  cacheRoot,
  commandTail,
  execFileAsync,
  findOnPath,
  goInstall,
  isExecutable,
} from './binary-cache';

/** The CLI release we build and test against (bundles Temporal Server 1.29.1). */
export const TEMPORAL_CLI_VERSION = '1.5.1';
const GO_MODULE = 'github.com/temporalio/cli/cmd/temporal';
const MIN_GO = [1, 25] as const;

export type TemporalCli =
  | { readonly kind: 'binary'; readonly path: string; readonly source: string }
  /** No binary here: let `@temporalio/testing` download its own dev server. */
  | {
      readonly kind: 'sdk-download';
      readonly source: string;
      readonly attempts: readonly string[];
    };

export class TemporalCliNotFoundError extends Error {
  constructor(readonly attempts: readonly string[]) {
    super(
      'No Temporal CLI could be found or built. Tried, in order:\n' +
        attempts.map((a, i) => `  ${i + 1}. ${a}`).join('\n') +
        '\nFix one of them: set TEMPORAL_CLI_PATH to a `temporal` binary, put `temporal` on PATH, ' +
        `install Go >= ${MIN_GO.join('.')} (the CLI is then built once from ${GO_MODULE}@v${TEMPORAL_CLI_VERSION}), ` +
        'or give this machine internet access for the SDK download.',
    );
    this.name = 'TemporalCliNotFoundError';
  }
}

/** Where the CLI of `version` is cached: outside the checkout, so fresh clones reuse it. */
export function cachedCliPath(version = TEMPORAL_CLI_VERSION, env = process.env): string {
  return join(cacheRoot(env), 'temporal-cli', version, 'temporal');
}

async function goVersion(env: NodeJS.ProcessEnv): Promise<[number, number] | undefined> {
  try {
    const { stdout } = await execFileAsync('go', ['version'], { env });
    const m = /go(\d+)\.(\d+)/.exec(stdout);
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

export interface ResolveOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Told what is happening (e.g. that a one-time build has started). @default console.error */
  readonly log?: (line: string) => void;
  /** Build with Go when nothing is found. @default true */
  readonly allowBuild?: boolean;
  /** Fall back to the SDK's download when nothing else works. @default true */
  readonly allowDownload?: boolean;
}

/** Builds the CLI with `go install` into the cache; atomic, so a concurrent build is harmless. */
async function buildWithGo(target: string, env: NodeJS.ProcessEnv, log: (l: string) => void) {
  log(
    `Building the Temporal CLI v${TEMPORAL_CLI_VERSION} from its Go module (one time per machine; ` +
      'about 3 minutes on 2 cores with a cold Go cache) ...',
  );
  const started = Date.now();
  await goInstall({
    module: `${GO_MODULE}@v${TEMPORAL_CLI_VERSION}`,
    goBinary: 'temporal',
    target,
    env,
    ldflags: `-X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
  });
  log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
}

/** Resolves the Temporal CLI, building it once when needed. */
export async function resolveTemporalCli(options: ResolveOptions = {}): Promise<TemporalCli> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((l: string) => console.error(l));
  const attempts: string[] = [];

  const fromEnv = env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv))
      return { kind: 'binary', path: fromEnv, source: 'TEMPORAL_CLI_PATH' };
    attempts.push(`TEMPORAL_CLI_PATH=${fromEnv}: not an executable file`);
  } else {
    attempts.push('TEMPORAL_CLI_PATH: not set');
  }

  const onPath = findOnPath('temporal', env);
  if (onPath) return { kind: 'binary', path: onPath, source: 'PATH' };
  attempts.push('`temporal` on PATH: not found');

  const cached = cachedCliPath(TEMPORAL_CLI_VERSION, env);
  if (isExecutable(cached)) return { kind: 'binary', path: cached, source: 'cache' };
  attempts.push(`cache ${cached}: not there yet`);

  if (options.allowBuild !== false) {
    const go = await goVersion(env);
    if (!go) {
      attempts.push('Go build: `go` not found');
    } else if (go[0] < MIN_GO[0] || (go[0] === MIN_GO[0] && go[1] < MIN_GO[1])) {
      attempts.push(`Go build: go${go.join('.')} is older than ${MIN_GO.join('.')}`);
    } else {
      try {
        await buildWithGo(cached, env, log);
        if (existsSync(cached)) return { kind: 'binary', path: cached, source: 'go build' };
        attempts.push('Go build: finished but produced no binary');
      } catch (err) {
        attempts.push(`Go build failed: ${commandTail(err)}`);
      }
    }
  } else {
    attempts.push('Go build: disabled');
  }

  if (options.allowDownload !== false) {
    return { kind: 'sdk-download', source: 'SDK download', attempts };
  }
  attempts.push('SDK download: disabled');
  throw new TemporalCliNotFoundError(attempts);
}
