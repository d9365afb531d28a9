/**
 * Finds Temporal's time-skipping test server (`io.temporal:temporal-test-server`, a Java
 * program), or fetches it once from Maven Central and caches it outside the checkout, like the
 * CLI (cli-binary.ts). What is cached: a pom with that one dependency, the resolved class path
 * (the jars stay in Maven's own repository, `~/.m2`), and a small wrapper script that runs the JVM;
 * `TestWorkflowEnvironment.createTimeSkipping` runs that script as an `existing-path` executable.
 *
 * `npx tsx tools/temporal-server/test-server.ts --print-path` prints the script's path, fetching
 * first when needed (`.ci/run` calls it); every way that failed is listed in the error.
 */
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUILD_OUTPUT_BYTES,
  cacheRoot,
  execFileAsync,
  inScratchDir,
  isExecutable,
} from './binary-cache';

/** The test server release we test against (its protocol matches SDK 1.24's). */
export const TEST_SERVER_VERSION = '1.31.0';
const ARTIFACT = `io.temporal:temporal-test-server:${TEST_SERVER_VERSION}`;
const MAIN_CLASS = 'io.temporal.testserver.TestServer';
/**
 * A class-data-sharing archive of the server's classes, made once: the JVM then starts in about
 * half the time (measured on 2 busy cores: 2.5 s → 1.2 s). It matters because the SDK gives the
 * server 5 s to accept connections, a limit a cold JVM on a loaded CI machine can miss.
 */
const ARCHIVE = 'classes.jsa';

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

/** Whether a cached wrapper still works: its class path's jars and its class archive are there. */
function cacheIsUsable(wrapper: string): boolean {
  if (!isExecutable(wrapper)) return false;
  if (!existsSync(join(wrapper, '..', ARCHIVE))) return false;
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs the server once with `-XX:ArchiveClassesAtExit` until it listens, then stops it. */
async function makeClassArchive(dir: string, classpath: string, env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const jvm = spawn(
    'java',
    [`-XX:ArchiveClassesAtExit=${join(dir, ARCHIVE)}`, '-cp', classpath, MAIN_CLASS, String(port)],
    { env, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => jvm.once('exit', () => resolve()));
  const deadline = Date.now() + 120_000;
  while (!(await accepts(port))) {
    if (Date.now() > deadline || jvm.exitCode !== null) {
      jvm.kill('SIGKILL');
      throw new Error('the test server did not start while its class archive was being made');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  jvm.kill('SIGTERM');
  await exited;
  if (!existsSync(join(dir, ARCHIVE))) throw new Error('the JVM wrote no class archive');
}

/** Fetches the jars with Maven and writes the wrapper; atomic, so a concurrent fetch is harmless. */
async function fetchWithMaven(
  target: string,
  env: NodeJS.ProcessEnv,
  log: (l: string) => void,
): Promise<void> {
  const dir = join(target, '..');
  log(
    `Fetching Temporal's time-skipping test server ${ARTIFACT} from Maven Central (one time per ` +
      'machine; about 30 s, ~45 MB into ~/.m2) ...',
  );
  const started = Date.now();
  await inScratchDir(dir, '.fetch-', async (work) => {
    writeFileSync(join(work, 'pom.xml'), pom());
    await execFileAsync(
      'mvn',
      ['-q', '-B', 'dependency:build-classpath', '-Dmdep.outputFile=classpath.txt'],
      { cwd: work, env, maxBuffer: BUILD_OUTPUT_BYTES },
    );
    const classpath = readFileSync(join(work, 'classpath.txt'), 'utf8').trim();
    writeFileSync(join(work, 'classpath.txt'), classpath);
    // The SDK starts it as `<script> <port>`; exec keeps one process, so stopping it stops the JVM.
    writeFileSync(
      join(work, 'temporal-test-server'),
      '#!/bin/sh\n' +
        `# Temporal's time-skipping test server ${TEST_SERVER_VERSION}, written by hotel-booking-orchestrator.\n` +
        'dir="$(dirname "$0")"\n' +
        `exec java -XX:SharedArchiveFile="$dir/${ARCHIVE}" -Xshare:auto -XX:+UseSerialGC -cp "$(cat "$dir/classpath.txt")" ${MAIN_CLASS} "$@"\n`,
      { mode: 0o755 },
    );
    await makeClassArchive(work, classpath, env);
    renameSync(join(work, ARCHIVE), join(dir, ARCHIVE));
    renameSync(join(work, 'classpath.txt'), join(dir, 'classpath.txt'));
    renameSync(join(work, 'temporal-test-server'), target);
  });
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
