/**
 * Starts a real Temporal server for the demo, the local stack and the test suite: the server
 * binary of the selected release (selected-release.ts, the newest by default) on SQLite — in memory, or
 * one file in WAL mode when a DB file is given — from the same config template as the cluster
 * (deploy/temporal/config/cluster.yaml with DB=sqlite), one history shard, the namespace
 * `default` and our search attributes registered (also on an existing DB), and the Temporal UI
 * server unless headless. Ready to serve when the promise resolves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import {
  temporalConnectionOptions,
  type TemporalSecurity,
} from '../../src/client/connection-options';
import { freeLoopbackPort, portIsFree } from '../../src/observability/ports';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/shared/search-attributes';
import { ensureClusterBinaries } from './cluster-binaries';
import { uiServerArgs } from './ui-server';

/** The server's config template, shared with the cluster and docker-compose. */
const SERVER_CONFIG = join(__dirname, '..', '..', 'deploy', 'temporal', 'config', 'cluster.yaml');

/**
 * Dynamic config the product relies on (update-with-start for idempotent starts), the same as the
 * cluster's (deploy/temporal/dynamicconfig/development-sql.yaml): production settings only. Not
 * `system.forceSearchAttributesCacheRefreshOnRead` (Temporal: never in production): the search
 * attributes are registered through the operator API, and waited for until queries accept them
 * ({@link ensureSearchAttributes}).
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
  // Off, the server's default, as on the cluster (the Temporal CLI's dev server turned it on):
  // on, every search attribute check and visibility write re-reads the cluster metadata.
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
  /** The server's Prometheus endpoint (`/metrics`). @default a free port */
  readonly metricsPort?: number;
  /** Where the server's own output goes. @default 'ignore' */
  readonly stdio?: 'inherit' | 'ignore';
  /** So the UI decodes payloads through our codec server. */
  readonly uiCodecEndpoint?: string;
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
  /** The server's Prometheus endpoint. */
  readonly metricsUrl: string;
  /** As the server reports it (GetSystemInfo), e.g. `1.32.2`. */
  readonly serverVersion: string;
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

/** The server's version as it reports it (GetSystemInfo), e.g. `1.32.2`. */
export async function readServerVersion(
  address: string,
  security: Partial<TemporalSecurity> = {},
): Promise<string> {
  const connection = await Connection.connect(temporalConnectionOptions({ ...security, address }));
  try {
    return (await connection.workflowService.getSystemInfo({})).serverVersion;
  } finally {
    await connection.close();
  }
}

/**
 * Registers our search attributes on `namespace` when missing, and waits until the server's
 * search attribute cache has them (a query naming them is accepted): a workflow that wrote one
 * earlier would fail its task. For a new namespace (the dev server's `default`, a DB file of an
 * older release) and an existing one alike.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace = 'default',
  timeoutMs = 120_000,
) {
  const existing = await listSearchAttributes(connection, namespace, timeoutMs);
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

/**
 * The namespace's search attributes; a namespace registered a moment ago is "not found" here until
 * the server's namespace registry has it (seconds, longer on a loaded machine): waited for.
 */
async function listSearchAttributes(connection: Connection, namespace: string, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await connection.operatorService.listSearchAttributes({ namespace });
    } catch (err) {
      if ((err as { code?: number }).code !== 5 /* NOT_FOUND */ || Date.now() > until) throw err;
      await sleep(250);
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

/**
 * The dynamic config file the server reads: the product's settings, the dev server's tuning and
 * the caller's overrides, each value given as JSON (`'true'`, `'1000'`) or a plain string. Pure.
 */
export function dynamicConfigYaml(values: Readonly<Record<string, string>>): string {
  const lines = ['# Written by tools/temporal-server/dev-server.ts at every start.'];
  for (const [key, raw] of Object.entries(values)) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    lines.push(`${key}:`, `  - value: ${JSON.stringify(value)}`, '    constraints: {}');
  }
  return lines.join('\n') + '\n';
}

/** The ports one server uses besides its frontend's: each role's gRPC and membership port. */
async function internalPorts(host: string) {
  const names = [
    'FRONTEND_HTTP_PORT',
    'FRONTEND_MEMBERSHIP_PORT',
    'HISTORY_GRPC_PORT',
    'HISTORY_MEMBERSHIP_PORT',
    'MATCHING_GRPC_PORT',
    'MATCHING_MEMBERSHIP_PORT',
    'WORKER_GRPC_PORT',
    'WORKER_MEMBERSHIP_PORT',
  ] as const;
  const out: Record<string, string> = {};
  for (const name of names) out[name] = String(await freePort(host));
  return out;
}

/** The template's environment for a dev server (pure but for the ports given). */
export function devServerEnv(o: {
  readonly host: string;
  readonly port: number;
  readonly metricsPort: number;
  readonly dbFile: string | undefined;
  readonly dynamicConfigFile: string;
  readonly internal: Readonly<Record<string, string>>;
  readonly logLevel: string;
}): Record<string, string> {
  return {
    DB: 'sqlite',
    ...(o.dbFile ? { SQLITE_FILE: o.dbFile } : {}),
    NUM_HISTORY_SHARDS: '1',
    LOG_LEVEL: o.logLevel,
    BIND_ON_IP: o.host,
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    TEMPORAL_CLUSTER_RPC_ADDRESS: `127.0.0.1:${o.port}`,
    FRONTEND_GRPC_PORT: String(o.port),
    ...o.internal,
    PROMETHEUS_ENDPOINT: `127.0.0.1:${o.metricsPort}`,
    DYNAMIC_CONFIG_FILE_PATH: o.dynamicConfigFile,
  };
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

/** How many times a start is tried when another process took one of its own ports meanwhile. */
const PORT_RACE_TRIES = 5;

/** Starts the dev server and resolves once it serves gRPC (and the UI, when on). */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? (() => undefined);
  const headless = options.headless === true;
  const binaries = await ensureClusterBinaries({
    only: headless ? ['temporal-server'] : ['temporal-server', 'temporal-ui-server'],
    log,
  });
  const host = options.ip ?? '127.0.0.1';
  const port = options.port ?? (await freePort());
  if (options.dbFile) {
    mkdirSync(dirname(options.dbFile), { recursive: true });
    forgetEarlierMembers(options.dbFile);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const server = await launchServer(binaries['temporal-server'], options, { host, port });
      const uiPort = headless ? undefined : (options.uiPort ?? port + 1000);
      return await withUi(server, binaries['temporal-ui-server'], options, { host, uiPort });
    } catch (err) {
      if (!(err instanceof OwnPortTaken) || attempt >= PORT_RACE_TRIES) throw err;
      log(`${err.message}: starting again on other ports`);
    }
  }
}

/**
 * One of the ports the server picked for itself (not the caller's) was taken by another process
 * between the pick and the server's bind: a race with the machine, tried again.
 */
class OwnPortTaken extends Error {}

interface LaunchedServer {
  readonly child: ChildProcess;
  readonly address: string;
  readonly metricsPort: number;
  readonly serverVersion: string;
  /** Its work directory (config files), removed when it exits. */
  readonly work: string;
  readonly output: () => string;
}

/** The server process, ready: frontend answering, `default` registered, our attributes usable. */
async function launchServer(
  binary: string,
  options: DevServerOptions,
  at: { readonly host: string; readonly port: number },
): Promise<LaunchedServer> {
  const bindHost = at.host === '0.0.0.0' ? '127.0.0.1' : at.host;
  const address = `${bindHost}:${at.port}`;
  const metricsPort = options.metricsPort ?? (await freePort());
  const internal = await internalPorts(bindHost);
  const work = mkdtempSync(join(tmpdir(), 'hbo-temporal-'));
  const dynamicConfigFile = join(work, 'dynamicconfig.yaml');
  writeFileSync(
    dynamicConfigFile,
    dynamicConfigYaml({
      ...DEV_SERVER_DYNAMIC_CONFIG,
      ...DEV_SERVER_TUNING,
      ...options.dynamicConfig,
    }),
  );
  const env = devServerEnv({
    host: at.host,
    port: at.port,
    metricsPort,
    dbFile: options.dbFile,
    dynamicConfigFile,
    internal,
    logLevel: options.stdio === 'inherit' ? 'warn' : 'error',
  });
  const inherit = options.stdio === 'inherit';
  const child = spawn(binary, ['--config-file', SERVER_CONFIG, '--allow-no-auth', 'start'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', inherit ? 'inherit' : 'pipe', inherit ? 'inherit' : 'pipe'],
  });
  stopWithThisProcess(child);
  const output = outputTail(child);
  let exitInfo: string | undefined;
  const exited = new AbortController();
  child.once('exit', (code, signal) => {
    exitInfo = `exited with ${signal ?? code}`;
    exited.abort();
    rmSync(work, { recursive: true, force: true });
  });
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  try {
    const serverVersion = await Promise.race([
      serverReady(address, readyTimeoutMs, exited.signal),
      new Promise<never>((_, reject) =>
        child.once('close', () => {
          const why = lastLogMessage(output()) || `port ${at.port} taken?`;
          const ours = [
            ...Object.values(internal),
            ...(options.metricsPort ? [] : [String(metricsPort)]),
          ];
          const taken = takenOwnPort(why, ours);
          reject(
            taken !== undefined
              ? new OwnPortTaken(`port ${taken} the server picked for itself was taken`)
              : new Error(
                  `the Temporal server ${exitInfo ?? 'exited'} before it was ready: ${why}`,
                ),
          );
        }),
      ),
    ]);
    return { child, address, metricsPort, serverVersion, work, output };
  } catch (err) {
    await stopChild(child);
    throw err;
  }
}

/**
 * The port of `ours` that the server's last message says another process holds ("listen tcp
 * 127.0.0.1:43433: bind: address already in use"), if any. Pure.
 */
export function takenOwnPort(message: string, ours: readonly string[]): string | undefined {
  const taken = /:(\d+): bind: address already in use/.exec(message)?.[1];
  return taken !== undefined && ours.includes(taken) ? taken : undefined;
}

/** Until the server serves `default` with our search attributes; its version. */
async function serverReady(address: string, timeoutMs: number, signal: AbortSignal) {
  await waitForTemporal(address, timeoutMs, 'temporal-system', {}, signal);
  const connection = await Connection.connect({ address });
  try {
    const { serverVersion } = await connection.workflowService.getSystemInfo({});
    await registerDefaultNamespace(connection);
    await waitForTemporal(address, timeoutMs, 'default', {}, signal);
    await ensureSearchAttributes(connection);
    return serverVersion;
  } finally {
    await connection.close();
  }
}

/** The UI server beside a ready server (unless headless), and the {@link DevServer} of both. */
async function withUi(
  server: LaunchedServer,
  binary: string,
  options: DevServerOptions,
  at: { readonly host: string; readonly uiPort: number | undefined },
): Promise<DevServer> {
  const { child, address, uiPort } = { ...server, ...at };
  let ui: ChildProcess | undefined;
  if (uiPort !== undefined) {
    const inherit = options.stdio === 'inherit';
    ui = spawn(
      binary,
      uiServerArgs({
        dir: join(server.work, 'ui'),
        address,
        port: uiPort,
        host: at.host,
        codecEndpoint: options.uiCodecEndpoint,
      }),
      {
        env: { PATH: process.env.PATH },
        stdio: ['ignore', inherit ? 'inherit' : 'ignore', inherit ? 'inherit' : 'ignore'],
      },
    );
    stopWithThisProcess(ui);
  }
  const stopBoth = async (signal: 'SIGTERM' | 'SIGKILL') => {
    if (ui) await stopChild(ui, signal);
    await stopChild(child, signal);
  };
  try {
    if (ui) await waitForHttp(`http://127.0.0.1:${uiPort}/`, 30_000, ui);
  } catch (err) {
    await stopBoth('SIGTERM');
    throw err;
  }
  return {
    address,
    uiUrl:
      uiPort === undefined
        ? undefined
        : `http://${at.host === '0.0.0.0' ? 'localhost' : at.host}:${uiPort}`,
    metricsUrl: `http://127.0.0.1:${server.metricsPort}/metrics`,
    serverVersion: server.serverVersion,
    pid: child.pid,
    stop: () => stopBoth('SIGTERM'),
    kill: () => stopBoth('SIGKILL'),
    errorLog: server.output,
  };
}

/**
 * Forgets the members an earlier server on this DB file recorded: its services' ports were other
 * free ports, and a new server that finds rows heartbeated in the last 20 s tries to join them
 * (its matching service stayed unreachable — "Not enough hosts to serve the request" — and its stop
 * took 14 s). No server runs on the file while this one starts.
 */
function forgetEarlierMembers(dbFile: string): void {
  if (!existsSync(dbFile)) return;
  const db = new Database(dbFile);
  try {
    const table = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'cluster_membership'",
      )
      .get();
    if (table) db.prepare('DELETE FROM cluster_membership').run();
  } finally {
    db.close();
  }
}

/** Registers `default` with one day's retention; an existing one stays as it is. */
async function registerDefaultNamespace(connection: Connection): Promise<void> {
  try {
    await connection.workflowService.registerNamespace({
      namespace: 'default',
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
  } catch (err) {
    if ((err as { code?: number }).code !== 6 /* ALREADY_EXISTS */) throw err;
  }
}

/** Until `url` answers an HTTP GET (any status), or the process exits. */
async function waitForHttp(url: string, timeoutMs: number, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(
        `the Temporal UI server exited (${proc.signalCode ?? proc.exitCode}) before it served ${url}`,
      );
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await sleep(200);
    }
  }
  throw new Error(`the Temporal UI server did not serve ${url} within ${timeoutMs} ms`);
}

/**
 * The end of what the server writes (its log, JSON lines at error level): its last message is the
 * error when it exits before it serves ("… address already in use" says what to change), and the
 * whole tail goes into a failed drill's report. The pipes are read to their end, so a chatty server
 * never blocks on them.
 */
function outputTail(child: ChildProcess): () => string {
  let tail = '';
  const add = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-16_384);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => tail;
}

/**
 * The message of the server's last log line: `msg` and `error` of a JSON line, or the line itself
 * (the server's own exit message, "Unable to start server. Error: …").
 */
export function lastLogMessage(output: string): string {
  const line =
    output
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .at(-1) ?? '';
  try {
    const parsed = JSON.parse(line) as { msg?: string; error?: string };
    return [parsed.msg, parsed.error].filter(Boolean).join(': ');
  } catch {
    return line;
  }
}
