/**
 * The production worker entry point (`node --import tsx src/worker.ts`) as a child process, for
 * the ops tests: real signals, real exit codes, real stdout. Its ports are free ones; its
 * simulator and Temporal server are the test's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BookingClient } from '../../src/client';
import { temporalSecurityEnvOf } from '../../src/config/temporal-security';
import { buildSimulator, type Simulator, type SimulatorOptions } from '../../tools/simulator';
import { portIsFree } from '../../src/observability/ports';
import { eventually } from '../helpers/booking-stack';
import { connectTemporal, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

const ROOT = join(__dirname, '..', '..');

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly taskQueue: string;
  readonly metricsUrl: string;
  readonly healthUrl: string;
  /** Everything written to stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
  /** Every stdout line parsed as JSON (a line that is not JSON fails the test that asks). */
  logLines(): Record<string, unknown>[];
  /** Resolves with the exit code (or the signal's name) once the process ended. */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** Polls `/readyz` until 200. */
  waitReady(timeoutMs?: number): Promise<void>;
  /** SIGKILL if still running (cleanup). */
  kill(): void;
}

export interface StartWorkerOptions {
  readonly taskQueue: string;
  /** Extra environment: TEMPORAL_ADDRESS, HOTEL_API_*, LOG_LEVEL, … */
  readonly env: Record<string, string>;
  /** Leave TEMPORAL_METRICS_PORT unset (the worker takes a free port itself). */
  readonly freeSdkMetricsPort?: boolean;
  /** Node's arguments. @default the sources through tsx: `--import tsx src/worker.ts` */
  readonly nodeArgs?: readonly string[];
}

/** This process's next candidate in {@link workerPort}'s range (apart per process by its pid). */
let nextPort = 20_000 + ((process.pid * 97) % 6_000);

/**
 * Claims `port` for this process for the rest of the run. Test files run in parallel processes
 * that pick from the same range, and two of them could each find a port free before either's
 * worker bound it (seen: a worker stopped on its HEALTH_PORT "in use"). A claim is a file created
 * exclusively in the run's directory (`TEST_WORK_DIR`, removed with the run); without one (the
 * chaos drills, `npm run chaos`, outside the suite) a single process picks from the range.
 */
function claim(port: number): boolean {
  const runDir = process.env.TEST_WORK_DIR;
  if (!runDir) return true;
  const dir = join(runDir, 'worker-ports');
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, String(port)), String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * A port for a worker's endpoints from 20,000–26,000, below the OS's ephemeral range (32,768 and
 * up here), claimed by this process and free when picked: a port the OS hands out meanwhile
 * (another worker's SDK exporter on port 0, a dev server) or another test process picks can then
 * never be the one this worker is about to bind.
 */
async function workerPort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = nextPort;
    nextPort = nextPort >= 26_000 ? 20_000 : nextPort + 1;
    if (claim(port) && (await portIsFree(port))) return port;
  }
  throw new Error('no free port in 20,000–26,000 for a test worker');
}

/** Spawns the worker with free METRICS_PORT, TEMPORAL_METRICS_PORT and HEALTH_PORT. */
export async function startWorkerProcess(options: StartWorkerOptions): Promise<WorkerProcess> {
  const [metricsPort, sdkPort, healthPort] = [
    await workerPort(),
    await workerPort(),
    await workerPort(),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    METRICS_PORT: String(metricsPort),
    TEMPORAL_METRICS_PORT: String(sdkPort),
    HEALTH_PORT: String(healthPort),
    METRICS_VISIBILITY_REFRESH_MS: '0',
    // Each worker its own catalogue, outside the checkout.
    CATALOGUE_DB_PATH: join(tmpdir(), `hbo-worker-${options.taskQueue}`, 'catalogue.db'),
    ...options.env,
  };
  if (options.freeSdkMetricsPort) delete env.TEMPORAL_METRICS_PORT;
  // A worker sent to another server than the run's (its own dev server) must not inherit the
  // run's TLS settings (the suite on the cluster sets them).
  if (
    options.env.TEMPORAL_ADDRESS &&
    options.env.TEMPORAL_ADDRESS !== process.env.TEMPORAL_ADDRESS
  ) {
    for (const k of Object.keys(temporalSecurityEnvOf(process.env))) {
      if (!(k in options.env)) delete env[k];
    }
  }
  // The test's client encrypts with the development key: so must the worker.
  delete env.PAYLOAD_ENCRYPTION_KEYS;
  delete env.PAYLOAD_ENCRYPTION_KEYS_FILE;
  const child = spawn(process.execPath, options.nodeArgs ?? ['--import', 'tsx', 'src/worker.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const healthUrl = `http://127.0.0.1:${healthPort}`;
  return {
    child,
    taskQueue: options.taskQueue,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    healthUrl,
    output: () => ({ stdout, stderr }),
    logLines: () =>
      stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    exited,
    async waitReady(timeoutMs = 60_000) {
      await eventually(
        async () => {
          if (child.exitCode !== null) {
            throw new Error(`worker exited ${child.exitCode}: ${stderr}${stdout.slice(-2000)}`);
          }
          const res = await fetch(`${healthUrl}/readyz`);
          return res.status === 200;
        },
        timeoutMs,
        'the worker to be ready',
      );
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** A company the subprocess worker signs as; the secret is a sentinel the logs must not show. */
export const OPS_COMPANY = {
  key: 'ops-key',
  secret: 'ops-SENTINEL-secret-7f3a9c1e5b',
} as const;

export interface OpsStack {
  readonly sim: Simulator;
  readonly simUrl: string;
  readonly temporal: TestTemporal;
  readonly bookings: BookingClient;
  readonly taskQueue: string;
  /** The environment a worker subprocess needs to reach this stack. */
  readonly workerEnv: Record<string, string>;
  close(): Promise<void>;
}

/** The simulator (port 0) and a Temporal client for a worker subprocess to serve. */
export async function startOpsStack(
  name: string,
  options: { simulator?: SimulatorOptions; temporalAddress?: string } = {},
): Promise<OpsStack> {
  const sim = buildSimulator({
    companies: [{ ...OPS_COMPANY, active: true }],
    inspection: true,
    seed: 7,
    ...options.simulator,
  });
  const { origin } = await sim.listen(0, '127.0.0.1');
  const temporal = await connectTemporal();
  const taskQueue = uniqueTaskQueue(name);
  return {
    sim,
    simUrl: origin,
    temporal,
    taskQueue,
    bookings: new BookingClient({ client: temporal.client, taskQueue }),
    workerEnv: {
      TEMPORAL_ADDRESS: options.temporalAddress ?? process.env.TEMPORAL_ADDRESS ?? '',
      HOTEL_API_BASE_URL: origin,
      HOTEL_API_KEY: OPS_COMPANY.key,
      HOTEL_API_SECRET: OPS_COMPANY.secret,
    },
    async close() {
      await temporal.close();
      await sim.close();
    },
  };
}
