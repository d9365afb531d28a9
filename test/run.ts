/**
 * `npm test`: one Temporal dev server for the whole run (or `TEMPORAL_ADDRESS` when set, with the
 * `TEMPORAL_TLS_*` variables it needs; or, with `TEST_ON_CLUSTER=1`, the production topology of
 * `npm run cluster` — PostgreSQL, the Temporal server with mTLS, on TEST_CLUSTER_NODES nodes
 * (default 1; several behind the balancer) — started for the run on `.data/cluster-test-<release>/`
 * (or `.data/cluster-test-<N>-nodes-<release>/`), base port TEST_CLUSTER_BASE_PORT, default 27233), the
 * workflows bundled once, then node's test runner over every `test/**\/*.test.ts` (or the files
 * given as arguments). Everything started here is stopped here, also when a test fails or hangs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { bundleWorkflows } from '../src/workflow-bundle';
import { RunSummary } from './helpers/run-summary';
import { selectedRelease } from '../tools/temporal-server/selected-release';
import { BENCH_WORKFLOWS_PATH } from '../bench/control';
import { startDevServer, type DevServer } from '../tools/temporal-server/dev-server';
import {
  startClusterInfrastructure,
  type ClusterProcesses,
} from '../tools/temporal-server/cluster';

/** The whole run is stopped after this long, whatever is still running. */
const RUN_TIMEOUT_MS = Number(process.env.TEST_RUN_TIMEOUT_MS ?? 25 * 60_000);
/** One test that runs longer than this fails (a hung test must not hang the run). */
const TEST_TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS ?? 5 * 60_000);
/** Test files run in parallel processes; the server and workers share 2 cores. */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 3);

/** After the runner's summary, how long it may take to exit before its group is stopped. */
const EXIT_GRACE_MS = 15_000;

/**
 * The runner's exit code, its output passed through. Once its summary is out (`ℹ duration_ms`),
 * the runner has EXIT_GRACE_MS to exit; a test file it cancelled on its timeout may have left a
 * process behind that keeps it waiting, so then its whole process group is stopped and the code
 * read from the summary. The group is stopped at the end in any case: nothing is left running.
 */
async function runToSummary(child: ChildProcess, runTimeoutMs: number): Promise<number> {
  const summary = new RunSummary();
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  let grace: NodeJS.Timeout | undefined;
  let stoppedAfterSummary = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (summary.add(chunk.toString()) && !grace) {
      grace = setTimeout(() => {
        console.error(
          `[test-run] The test runner had not exited ${EXIT_GRACE_MS / 1000} s after its summary: stopping what it left running.`,
        );
        stoppedAfterSummary = true;
        killGroup();
      }, EXIT_GRACE_MS);
    }
  });
  const timer = setTimeout(() => {
    console.error(`[test-run] The run exceeded ${runTimeoutMs} ms: stopping it.`);
    killGroup();
  }, runTimeoutMs);
  const code = await new Promise<number>((resolve) =>
    child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))),
  );
  clearTimeout(timer);
  clearTimeout(grace);
  killGroup();
  return stoppedAfterSummary ? summary.exitCode() : code;
}

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'helpers' ? [] : findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** A mistake in the arguments: said in one line, no stack. */
class RunUsageError extends Error {}

/**
 * The test files the arguments name: a folder stands for its `*.test.ts` files (node's runner
 * would take it as a pattern and run none); a name that is neither fails the run, said once.
 */
function testFilesOf(args: readonly string[]): string[] {
  return args.flatMap((arg) => {
    if (!existsSync(arg)) throw new RunUsageError(`npm test: no such test file or folder: ${arg}`);
    return statSync(arg).isDirectory() ? findTests(arg) : [arg];
  });
}

async function main(): Promise<number> {
  const root = join(__dirname, '..');
  const args = process.argv.slice(2);
  const files = (args.length > 0 ? testFilesOf(args) : findTests(join(root, 'test'))).sort();
  const started = Date.now();
  const log = (line: string) => console.log(`[test-run] ${line}`);

  let server: DevServer | undefined;
  let cluster: ClusterProcesses | undefined;
  let clientEnv: Record<string, string> = {};
  const work = mkdtempSync(join(tmpdir(), 'hbo-test-'));
  const cleanup = async () => {
    await server?.stop();
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    let address = process.env.TEMPORAL_ADDRESS;
    if (process.env.TEST_ON_CLUSTER === '1') {
      const nodes = Number(process.env.TEST_CLUSTER_NODES ?? 1);
      cluster = await startClusterInfrastructure({
        // A database per node count: the shard count and the nodes' ports stay its own.
        // …and per release: a database's schema only moves forward.
        dataDir: join(
          root,
          '.data',
          `cluster-test${nodes > 1 ? `-${nodes}-nodes` : ''}-${selectedRelease()}`,
        ),
        basePort: Number(process.env.TEST_CLUSTER_BASE_PORT ?? 27233),
        nodes,
        log,
      });
      address = cluster.address;
      clientEnv = { ...cluster.clientEnv };
      log(
        `Cluster (PostgreSQL, Temporal ${cluster.serverVersion} on ${nodes} node(s), ${cluster.shards} shards, mTLS) on ${address}, ready in ${Date.now() - started} ms`,
      );
    } else if (!address) {
      server = await startDevServer({ headless: true, log });
      address = server.address;
      log(
        `Temporal dev server ${server.serverVersion} on ${address} (ready in ${Date.now() - started} ms)`,
      );
    } else {
      log(`Using the Temporal server at ${address}`);
    }
    const bundleStart = Date.now();
    const bundlePath = join(work, 'workflow-bundle.js');
    // The product's workflows and the bench's control, which tests use too.
    writeFileSync(bundlePath, (await bundleWorkflows(BENCH_WORKFLOWS_PATH)).code);
    log(`Workflows bundled once in ${Date.now() - bundleStart} ms`);
    log(`${files.length} test files, ${CONCURRENCY} at a time`);

    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-reporter=spec',
        `--test-concurrency=${CONCURRENCY}`,
        `--test-timeout=${TEST_TIMEOUT_MS}`,
        ...files.map((f) => relative(root, f)),
      ],
      {
        cwd: root,
        // A process group of its own: whatever a test file started goes with it at the end.
        detached: true,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          ...clientEnv,
          TEMPORAL_ADDRESS: address,
          WORKFLOW_BUNDLE_PATH: bundlePath,
          TEST_WORK_DIR: work,
          NODE_ENV: 'test',
        },
      },
    );
    const code = await runToSummary(child, RUN_TIMEOUT_MS);
    log(`Suite finished in ${((Date.now() - started) / 1000).toFixed(1)} s, exit ${code}`);
    return code;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof RunUsageError ? err.message : err);
    process.exit(err instanceof RunUsageError ? 2 : 1);
  },
);
