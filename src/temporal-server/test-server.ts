/**
 * Finds Temporal's time-skipping test server (`io.temporal:temporal-test-server`, a Java
 * program), or fetches it once from Maven Central and caches it outside the checkout, like the
 * CLI (cli-binary.ts). What is cached: a pom with that one dependency, the resolved class path
 * (the jars stay in Maven's own repository, `~/.m2`), and a small wrapper script that runs the JVM;
 * `TestWorkflowEnvironment.createTimeSkipping` runs that script as an `existing-path` executable.
 *
 * `npx tsx src/temporal-server/test-server.ts --print-path` prints the script's path, fetching
 * first when needed (`.ci/run` calls it); every way that failed is listed in the error.
 */
import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheRoot } from './cli-binary';

const execFileAsync = promisify(execFile);

/** The test server release we test against (its protocol matches SDK 1.24's). */
export const TEST_SERVER_VERSION = '1.31.0';
const ARTIFACT = `io.temporal:temporal-test-server:${TEST_SERVER_VERSION}`;
const MAIN_CLASS = 'io.temporal.testserver.TestServer';

export class TestServerNotFoundError extends Error {
  constructor(readonly attempts: readonly string[]) {
    super(
      "Temporal's time-skipping test server could not be found or fetched. Tried, in order:\n" +
        attempts.map((a, i) => `  ${i + 1}. ${a}`).join('\n') +
        '\nFix one of them: set TEMPORAL_TEST_SERVER_PATH to an executable that runs ' +
        `${MAIN_CLASS} <port>, or install a JDK (>= 11, e.g. Debian's openjdk-17-jdk-headless) ` +
        `and Maven with access to Maven Central (${ARTIFACT} is then fetched once).`,
    );
    this.name = 'TestServerNotFoundError';
  }
}

/** Where the wrapper of `version` is cached. */
export function cachedTestServerPath(version = TEST_SERVER_VERSION, env = process.env): string {
  return join(cacheRoot(env), 'temporal-test-server', version, 'temporal-test-server');
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a cached wrapper still works: its class path's jars are all there. */
function cacheIsUsable(wrapper: string): boolean {
  if (!isExecutable(wrapper)) return false;
  const cp = join(wrapper, '..', 'classpath.txt');
  if (!existsSync(cp)) return false;
  const jars = readFileSync(cp, 'utf8').trim().split(':').filter(Boolean);
  return jars.length > 0 && jars.every((jar) => existsSync(jar));
}

async function has(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await execFileAsync(cmd, args, { env });
    return true;
  } catch {
    return false;
  }
}

function pom(): string {
  const [groupId, artifactId, version] = ARTIFACT.split(':');
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.hotel-booking-orchestrator</groupId>
  <artifactId>temporal-test-server-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>${groupId}</groupId>
      <artifactId>${artifactId}</artifactId>
      <version>${version}</version>
    </dependency>
  </dependencies>
</project>
`;
}

/** Fetches the jars with Maven and writes the wrapper; atomic, so a concurrent fetch is harmless. */
async function fetchWithMaven(
  target: string,
  env: NodeJS.ProcessEnv,
  log: (l: string) => void,
): Promise<void> {
  const dir = join(target, '..');
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, '.fetch-'));
  log(
    `Fetching Temporal's time-skipping test server ${ARTIFACT} from Maven Central (one time per ` +
      'machine; about 30 s, ~45 MB into ~/.m2) ...',
  );
  const started = Date.now();
  try {
    writeFileSync(join(work, 'pom.xml'), pom());
    await execFileAsync(
      'mvn',
      ['-q', '-B', 'dependency:build-classpath', '-Dmdep.outputFile=classpath.txt'],
      { cwd: work, env, maxBuffer: 64 * 1024 * 1024 },
    );
    const classpath = readFileSync(join(work, 'classpath.txt'), 'utf8').trim();
    writeFileSync(join(work, 'classpath.txt'), classpath);
    // The SDK starts it as `<script> <port>`; exec keeps one process, so stopping it stops the JVM.
    writeFileSync(
      join(work, 'temporal-test-server'),
      '#!/bin/sh\n' +
        `# Temporal's time-skipping test server ${TEST_SERVER_VERSION}, written by hotel-booking-orchestrator.\n` +
        `exec java -cp "$(cat "$(dirname "$0")/classpath.txt")" ${MAIN_CLASS} "$@"\n`,
      { mode: 0o755 },
    );
    renameSync(join(work, 'classpath.txt'), join(dir, 'classpath.txt'));
    renameSync(join(work, 'temporal-test-server'), target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(
    `Fetched the time-skipping test server in ${Math.round((Date.now() - started) / 1000)} s: ${target}`,
  );
}

export interface ResolveTestServerOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Told what is happening (e.g. that a one-time fetch has started). @default console.error */
  readonly log?: (line: string) => void;
  /** Fetch with Maven when nothing is found. @default true */
  readonly allowFetch?: boolean;
}

/** The path of an executable that runs the time-skipping test server; fetches it once if needed. */
export async function resolveTestServer(options: ResolveTestServerOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((l: string) => console.error(l));
  const attempts: string[] = [];

  const fromEnv = env.TEMPORAL_TEST_SERVER_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    attempts.push(`TEMPORAL_TEST_SERVER_PATH=${fromEnv}: not an executable file`);
  } else {
    attempts.push('TEMPORAL_TEST_SERVER_PATH: not set');
  }

  const cached = cachedTestServerPath(TEST_SERVER_VERSION, env);
  if (cacheIsUsable(cached)) return cached;
  attempts.push(`cache ${cached}: not there yet (or its jars are gone from ~/.m2)`);

  if (options.allowFetch === false) {
    attempts.push('Maven fetch: disabled');
    throw new TestServerNotFoundError(attempts);
  }
  if (!(await has('java', ['-version'], env))) {
    attempts.push('Maven fetch: `java` not found');
    throw new TestServerNotFoundError(attempts);
  }
  if (!(await has('mvn', ['-v'], env))) {
    attempts.push('Maven fetch: `mvn` not found');
    throw new TestServerNotFoundError(attempts);
  }
  try {
    await fetchWithMaven(cached, env, log);
  } catch (err) {
    const msg = String((err as { stdout?: string; stderr?: string }).stdout || err)
      .trim()
      .split('\n')
      .slice(-3);
    attempts.push(`Maven fetch failed: ${msg.join(' | ')}`);
    throw new TestServerNotFoundError(attempts);
  }
  if (cacheIsUsable(cached)) return cached;
  attempts.push('Maven fetch: finished but left no usable wrapper');
  throw new TestServerNotFoundError(attempts);
}

if (require.main === module) {
  resolveTestServer().then(
    (path) => {
      if (process.argv.includes('--print-path')) console.log(path);
      else console.log(`Time-skipping test server: ${path}`);
    },
    (err: unknown) => {
      console.error(err instanceof TestServerNotFoundError ? err.message : String(err));
      process.exit(1);
    },
  );
}
