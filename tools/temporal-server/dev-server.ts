/**
 * Starts a real `temporal server start-dev` for the demo, the local stack and the test suite:
 * persistence in SQLite (WAL) when a DB file is given, our search attributes registered (also on
 * an existing DB), ready to serve when the promise resolves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  temporalConnectionOptions,
  type TemporalSecurity,
} from '../../src/client/connection-options';
import { freeLoopbackPort, portIsFree } from '../../src/observability/ports';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/shared/search-attributes';
import { resolveTemporalCli, TemporalCliNotFoundError, type TemporalCli } from './cli-binary';

/**
 * Dynamic config the product relies on (update-with-start for idempotent starts), the same as the
 * cluster's (deploy/temporal/dynamicconfig/development-sql.yaml): production settings only. Not
 * `system.forceSearchAttributesCacheRefreshOnRead` (Temporal: never in production): the search
 * attributes are registered with the namespace (`--search-attribute`), and added ones are waited
 * for ({@link ensureSearchAttributes}).
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, string>> = {
  'frontend.enableExecuteMultiOperation': 'true',
  'frontend.enableUpdateWorkflowExecution': 'true',
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': 'true',
  // Eager dispatch saves a poll round trip per workflow start and per activity.
  'system.enableEagerWorkflowStart': 'true',
  'system.enableActivityEagerExecution': 'true',
  // The new matcher: task-queue priority (bookings ahead of polls, PRIORITY in
  // src/workflows/activity-options.ts) needs it; off by default in 1.29.1. OPEN: with it,
  // test/ops/rate-limit.test.ts (5/s cap) saw 16 (old matcher), 20 and 15 (new matcher, two of
  // seven runs, load average 25-35) supplier calls in 1 s; for the 15 the server had started at
  // most 10 activities in any 1 s (cap and burst), so the burst formed after it. Confirm when quiet.
  'matching.useNewMatcher': 'true',
  // One partition per task queue, as on the cluster (deploy/temporal/dynamicconfig/): priority
  // orders a partition's tasks, so with the default 4 a poller landing on a partition without the
  // new booking's price check took that partition's polls first (test/ops/bookings-ahead-of-polls:
  // 12 of 20 due polls ahead of it without priority, FIFO per partition); and the rate cap's burst
  // is one bucket's, not four.
  'matching.numTaskqueueReadPartitions': '1',
  'matching.numTaskqueueWritePartitions': '1',
  // Visibility API requests per second per frontend (default 10). Every new booking lists its
  // order's runs (activities/earlier-runs.ts: at least once, again while visibility lags behind its
  // own start), so the default capped the cluster at ~9.5 bookings/s whatever the fleet, with
  // throttled lists retried inside the first workflow task (8 s tasks). 1000 leaves a frontend
  // room for ~250 new bookings/s; the visibility store keeps its own read limit
  // (`system.visibilityPersistenceMaxReadQPS`, 9000).
  'frontend.namespaceRPS.visibility': '1000',
  // Off as on the cluster. The CLI's dev server turns it on unless told: every search attribute
  // check and visibility write then re-reads the cluster metadata.
  'system.forceSearchAttributesCacheRefreshOnRead': 'false',
};

/**
 * Performance settings for the dev server alone (one history shard on one SQLite connection), not
 * features the product relies on: a deployed cluster sizes these with its shard count.
 */
export const DEV_SERVER_TUNING: Readonly<Record<string, string>> = {
  // The transfer queue hands every workflow task to matching, and by default reads new tasks at
  // most 20 times a second per shard: on the dev server's single shard, a workflow task scheduled
  // shortly after another waited ~35 ms for the next read, twice per no-op workflow. At 1000 reads
  // a second it is dispatched at once (bench: no-op control workflow 101 -> 28 ms start to
  // result; bookRoom throughput 29.5 -> 34.6 bookings/s; server CPU per booking unchanged).
  'history.transferProcessorMaxPollRPS': '1000',
  // The same limit on the timer queue, which fires every poll of a waiting booking (a retry timer):
  // with 1000 bookings polled every 3 s, reads paused and 6 % of polls were 5-20 s late (p99
  // 15.5 s); at 1000 reads a second p99 is 1.1 s and the server keeps up (247 -> 325 polls/s).
  'history.timerProcessorMaxPollRPS': '1000',
  // The same limit on the visibility queue: a new run is listed by visibility once its record is
  // written, and a booking's check of the order's earlier runs waits for that (it re-lists until
  // it sees itself). At the default 20 reads a second that was up to ~50 ms and re-lists; at 1000,
  // bench work part (`--quick`, one pair under load 4-10): server CPU per booking ÷ control
  // 1.47 -> 1.32, p50 above the floor 33.6 -> 27.9 ms.
  'history.visibilityProcessorMaxPollRPS': '1000',
};

export interface DevServerOptions {
  /** @default a free port */
  readonly port?: number;
  /** @default port + 1000 when the UI is on, else none */
  readonly uiPort?: number;
  /** No web UI. @default false */
  readonly headless?: boolean;
  /** SQLite file; without it everything is in memory. */
  readonly dbFile?: string;
  /** @default '127.0.0.1' */
  readonly ip?: string;
  /** @default resolved with {@link resolveTemporalCli} */
  readonly cli?: TemporalCli;
  /** Where the server's own output goes. @default 'ignore' */
  readonly stdio?: 'inherit' | 'ignore';
  /** `--ui-codec-endpoint`, so the UI decodes payloads through our codec server. */
  readonly uiCodecEndpoint?: string;
  /** Extra `start-dev` arguments. */
  readonly extraArgs?: readonly string[];
  /** Dynamic config values over the product's and the tuning (bench baselines, experiments). */
  readonly dynamicConfig?: Readonly<Record<string, string>>;
  /** @default 90_000 */
  readonly readyTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface DevServer {
  /** gRPC address, `host:port`. */
  readonly address: string;
  readonly uiUrl: string | undefined;
  readonly pid: number | undefined;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s). Safe to call twice. */
  stop(): Promise<void>;
  /**
   * SIGKILLs the server, for crash tests; resolves once the process is gone, so its port and DB
   * file are free for a restart.
   */
  kill(): Promise<void>;
  /** The end of what the server logged (errors only), for a drill's report when it fails. */
  errorLog(): string;
}

/** A TCP port that was free a moment ago (the one helper, in src/observability/ports.ts). */
export const freePort = freeLoopbackPort;

/**
 * Where {@link restartablePort} draws from: below Linux's ephemeral range, and apart from the
 * ranges the test suite's own workers (20,000–26,000) and clusters (28,000–32,000) pick from.
 */
export const RESTARTABLE_PORTS = { from: 26_100, count: 1_000 } as const;

/**
 * A free port below Linux's ephemeral range (32768–60999), for a server that is stopped and started
 * again on the same port: a port from {@link freePort} lies in that range, so while the server is
 * down any process's outgoing connection or `listen(0)` (another test's dev server) may take it,
 * and the restart fails "address already in use" (seen in the crash drill under load).
 */
export async function restartablePort(host = '127.0.0.1', random = Math.random): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = RESTARTABLE_PORTS.from + Math.floor(random() * RESTARTABLE_PORTS.count);
    if (await portIsFree(port, host)) return port;
  }
  return freePort(host);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the frontend answers a real RPC (the SDK's own readiness wait is only 5 s). */
export async function waitForTemporal(
  address: string,
  timeoutMs: number,
  namespace = 'default',
  security: Partial<TemporalSecurity> = {},
  signal?: AbortSignal,
) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      const connection = await Connection.connect({
        ...temporalConnectionOptions({ ...security, address }),
        connectTimeout: 2_000,
      });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await sleep(250);
    }
  }
  throw new Error(
    `Temporal at ${address} was not ready within ${timeoutMs} ms: ${String(lastError)}`,
  );
}

/**
 * Registers our search attributes on `namespace` when missing, and waits until the server's
 * search attribute cache has them (a query naming them is accepted): a workflow that wrote one
 * earlier would fail its task. `--search-attribute` only applies when the namespace is created,
 * so an existing DB file needs this.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace = 'default',
  timeoutMs = 120_000,
) {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const have = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = ALL_SEARCH_ATTRIBUTE_KEYS.filter((k) => !have.has(k.name));
  if (missing.length === 0) return;
  await addSearchAttributes(connection, namespace, missing);
  const query = missing.map((k) => `${k.name} IS NOT NULL`).join(' AND ');
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.countWorkflowExecutions({ namespace, query });
      return;
    } catch (err) {
      if (Date.now() > until) {
        throw new Error(
          `search attributes ${missing.map((k) => k.name).join(', ')} were registered on ${namespace} but not usable within ${timeoutMs / 1000} s: ${String(err)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

async function addSearchAttributes(
  connection: Connection,
  namespace: string,
  missing: readonly (typeof ALL_SEARCH_ATTRIBUTE_KEYS)[number][],
) {
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((k) => [
        k.name,
        temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${k.type}`],
      ]),
    ),
  });
}

/** `KEYWORD` → `Keyword`, the spelling `--search-attribute` takes. */
function cliTypeName(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

function startDevArgs(o: DevServerOptions, port: number, uiPort: number | undefined): string[] {
  const args = ['server', 'start-dev', '--ip', o.ip ?? '127.0.0.1', '--port', String(port)];
  if (o.headless || uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  if (o.dbFile) {
    args.push('--db-filename', o.dbFile, '--sqlite-pragma', 'journal_mode=wal');
    args.push('--sqlite-pragma', 'synchronous=normal');
  }
  for (const key of ALL_SEARCH_ATTRIBUTE_KEYS) {
    args.push('--search-attribute', `${key.name}=${cliTypeName(key.type)}`);
  }
  for (const [key, value] of Object.entries({
    ...DEV_SERVER_DYNAMIC_CONFIG,
    ...DEV_SERVER_TUNING,
    ...o.dynamicConfig,
  })) {
    args.push('--dynamic-config-value', `${key}=${value}`);
  }
  if (o.uiCodecEndpoint) args.push('--ui-codec-endpoint', o.uiCodecEndpoint);
  args.push('--log-level', 'error', ...(o.extraArgs ?? []));
  return args;
}

/** Servers of this process still running, stopped when it exits. */
const running = new Set<ChildProcess>();

/**
 * The server ends with the process that started it, however that process ends without stopping
 * it: an uncaught error, `process.exit`, its output piped into `head` (a write to the closed pipe
 * fails): never a server left behind holding its ports and a core. A process killed outright
 * (SIGKILL, or SIGTERM with no handler) runs no exit handler; its servers are left.
 */
function stopWithThisProcess(child: ChildProcess): void {
  if (running.size === 0) process.once('exit', stopRunning);
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    if (running.size === 0) process.removeListener('exit', stopRunning);
  });
}

function stopRunning(): void {
  for (const child of running) child.kill('SIGTERM');
}

/** Ends the server with `signal` (SIGTERM turns SIGKILL after 10 s); resolves once it is gone. */
async function stopChild(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Starts the dev server and resolves once it serves gRPC (and the UI, when on). */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? (() => undefined);
  const cli = options.cli ?? (await resolveTemporalCli({ log }));
  const port = options.port ?? (await freePort());
  const uiPort = options.headless ? undefined : (options.uiPort ?? port + 1000);
  const host = options.ip ?? '127.0.0.1';
  const address = `${host}:${port}`;
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  if (options.dbFile) mkdirSync(dirname(options.dbFile), { recursive: true });

  if (cli.kind === 'sdk-download') {
    return startWithSdkDownload(options, cli, port, uiPort);
  }

  const inherit = options.stdio === 'inherit';
  const child = spawn(cli.path, startDevArgs(options, port, uiPort), {
    stdio: ['ignore', inherit ? 'inherit' : 'ignore', inherit ? 'inherit' : 'pipe'],
  });
  stopWithThisProcess(child);
  const stderr = stderrTail(child);
  let exitInfo: string | undefined;
  const exited = new AbortController();
  child.once('exit', (code, signal) => {
    exitInfo = `exited with ${signal ?? code}`;
    exited.abort();
  });
  try {
    await Promise.race([
      waitForTemporal(address, readyTimeoutMs, 'default', {}, exited.signal),
      new Promise<never>((_, reject) =>
        child.once('close', () =>
          reject(
            new Error(
              `temporal server start-dev ${exitInfo ?? 'exited'} before it was ready: ${lastLogMessage(stderr()) || `port ${port} taken?`}`,
            ),
          ),
        ),
      ),
    ]);
    const connection = await Connection.connect({ address });
    try {
      await ensureSearchAttributes(connection);
    } finally {
      await connection.close();
    }
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return {
    address,
    uiUrl:
      uiPort === undefined
        ? undefined
        : `http://${host === '0.0.0.0' ? 'localhost' : host}:${uiPort}`,
    pid: child.pid,
    stop: () => stopChild(child),
    kill: () => stopChild(child, 'SIGKILL'),
    errorLog: stderr,
  };
}

/**
 * The end of what the server writes on stderr (it logs errors only): its last message is the error
 * when it exits before it serves ("can't set frontend port …: address already in use" says what to
 * change), and the whole tail goes into a failed drill's report. The pipe is read to its end, so a
 * chatty server never blocks on it.
 */
function stderrTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-16_384);
  });
  return () => tail;
}

/** The message of the last line of `level=ERROR msg="…"` log output (the line itself if not). */
function lastLogMessage(output: string): string {
  const line =
    output
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .at(-1) ?? '';
  const msg = /\bmsg="((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
  return msg === undefined ? line : msg.replace(/\\(.)/g, '$1');
}

async function startWithSdkDownload(
  options: DevServerOptions,
  cli: Extract<TemporalCli, { kind: 'sdk-download' }>,
  port: number,
  uiPort: number | undefined,
): Promise<DevServer> {
  // Loaded lazily: only machines without a local binary need the testing package's downloader.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  let env: Awaited<ReturnType<typeof TestWorkflowEnvironment.createLocal>>;
  try {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: options.ip ?? '127.0.0.1',
        port,
        ui: uiPort !== undefined,
        ...(uiPort !== undefined ? { uiPort } : {}),
        ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
        extraArgs: [
          ...Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...DEV_SERVER_TUNING }).flatMap(
            ([k, v]) => ['--dynamic-config-value', `${k}=${v}`],
          ),
          ...(options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
          ...(options.extraArgs ?? []),
        ],
        searchAttributes: [...ALL_SEARCH_ATTRIBUTE_KEYS],
        executable: { type: 'cached-download' },
      },
    });
  } catch (err) {
    throw new TemporalCliNotFoundError([...cli.attempts, `SDK download failed: ${String(err)}`]);
  }
  await ensureSearchAttributes(env.connection);
  const address = `${options.ip ?? '127.0.0.1'}:${port}`;
  let stopped: Promise<void> | undefined;
  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://${options.ip ?? '127.0.0.1'}:${uiPort}`,
    pid: undefined,
    stop: () => (stopped ??= env.teardown()),
    kill: () =>
      Promise.reject(new Error('kill() needs a local Temporal binary (set TEMPORAL_CLI_PATH)')),
    errorLog: () => '',
  };
}
