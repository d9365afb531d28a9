/**
 * The production topology on one machine, natively (no Docker): PostgreSQL, the Temporal server
 * 1.29.1 (4 history shards, frontend with mTLS) configured from deploy/temporal/ — the same files
 * docker-compose mounts — the Temporal UI server, the codec server, the simulator and N workers
 * as separate processes. Everything lives under one data directory (`.data/cluster/`): a second
 * start reuses the database, so every workflow is kept.
 *
 * Ports are derived from one base port (default 17233) so the cluster coexists with a dev server
 * on 7233/8233; a busy port stops the start with one line naming it.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import {
  temporalConnectionOptions,
  type TemporalSecurity,
} from '../../src/client/connection-options';
import { loadTemporalSecurity } from '../../src/config/temporal-security';
import { makeCertificates, type CertificateSet } from './certificates';
import { resolveTemporalCli } from './cli-binary';
import { ensureClusterBinaries, type ClusterBinaryPaths } from './cluster-binaries';
import { ensureSearchAttributes, waitForTemporal } from './dev-server';

const execFileAsync = promisify(execFile);

/** The repository root: deploy/ is read from here. */
export const REPO_ROOT = join(__dirname, '..', '..');
/** The files both topologies share (docker-compose mounts them; the cluster reads them here). */
export const SHARED_FILES = {
  serverConfigDir: 'deploy/temporal/config',
  serverConfig: 'deploy/temporal/config/cluster.yaml',
  dynamicConfig: 'deploy/temporal/dynamicconfig/development-sql.yaml',
  setupPostgres: 'deploy/temporal/setup-postgres.sh',
  setupNamespace: 'deploy/temporal/setup-namespace.sh',
} as const;

export const DEFAULT_CLUSTER_BASE_PORT = 17233;
export const CLUSTER_HISTORY_SHARDS = 4;
/** The database role and password of the local PostgreSQL (local only, like compose's). */
const DB_USER = 'temporal';
const DB_PASSWORD = 'temporal';

export class ClusterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterError';
  }
}

/** Every port of the cluster, from one base. */
export interface ClusterPorts {
  readonly frontend: number;
  readonly frontendHttp: number;
  readonly frontendMembership: number;
  readonly history: number;
  readonly historyMembership: number;
  readonly matching: number;
  readonly matchingMembership: number;
  readonly worker: number;
  readonly workerMembership: number;
  readonly serverMetrics: number;
  readonly postgres: number;
  readonly ui: number;
  readonly codec: number;
  readonly simulator: number;
  /** Prometheus's web UI and API (when the binary is there). */
  readonly prometheus: number;
  /** Alertmanager's web UI and API (when the binary is there). */
  readonly alertmanager: number;
  /** The local alert receiver, where Alertmanager sends unless told otherwise. */
  readonly alertReceiver: number;
}

/**
 * Highest base port: the server stores membership ports in a PostgreSQL `smallint` (found the hard
 * way: a base of 37233 made the server exit with "value 37238 is out of range for type smallint").
 */
export const MAX_CLUSTER_BASE_PORT = 32_700;

/** The port layout (pure): base … base+16. */
export function clusterPorts(base: number): ClusterPorts {
  if (!Number.isInteger(base) || base < 1024 || base > MAX_CLUSTER_BASE_PORT) {
    throw new ClusterError(
      `base port ${base}: choose one from 1024 to ${MAX_CLUSTER_BASE_PORT} (membership ports are stored as a PostgreSQL smallint)`,
    );
  }
  return {
    frontend: base,
    frontendHttp: base + 1,
    history: base + 2,
    historyMembership: base + 3,
    matching: base + 4,
    matchingMembership: base + 5,
    worker: base + 6,
    workerMembership: base + 7,
    frontendMembership: base + 8,
    serverMetrics: base + 9,
    postgres: base + 10,
    ui: base + 11,
    codec: base + 12,
    simulator: base + 13,
    prometheus: base + 14,
    alertmanager: base + 15,
    alertReceiver: base + 16,
  };
}

/** Health port of the i-th worker. */
export const workerHealthPort = (base: number, i: number) => base + 20 + i;
/** Metrics port of the i-th worker (Prometheus scrapes each; the SDK's exporter is behind it). */
export const workerMetricsPort = (base: number, i: number) => base + 40 + i;

/** What the cluster's Prometheus scrapes: each of `workers` workers, and the server itself. */
export function clusterScrapeJobs(ports: ClusterPorts, workers: number) {
  return {
    'hotel-worker': Array.from(
      { length: workers },
      (_, i) => `127.0.0.1:${workerMetricsPort(ports.frontend, i)}`,
    ),
    'temporal-server': [`127.0.0.1:${ports.serverMetrics}`],
  };
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** One line per busy port, naming who needs it and how to move. */
export async function busyPorts(ports: ClusterPorts): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, port] of Object.entries(ports)) {
    if (!(await portFree(port))) {
      problems.push(
        `port ${port} (${name}) is in use: stop what listens there (a cluster already running?) or pass --base-port`,
      );
    }
  }
  return problems;
}

/** `--env` of the server: it loads `<config dir>/cluster.yaml`. */
export const SERVER_CONFIG_ENV = 'cluster';

/**
 * The environment the shared server config template (deploy/temporal/config/cluster.yaml) is
 * rendered from, natively (pure; docker-compose sets the same variables for its container).
 */
export function clusterServerEnv(
  ports: ClusterPorts,
  certs: Pick<CertificateSet, 'serverCert' | 'serverKey' | 'caCert' | 'clientCert' | 'clientKey'>,
  options: { logLevel?: string | undefined } = {},
): Record<string, string> {
  return {
    LOG_LEVEL: options.logLevel ?? 'warn',
    NUM_HISTORY_SHARDS: String(CLUSTER_HISTORY_SHARDS),
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(ports.postgres),
    POSTGRES_USER: DB_USER,
    POSTGRES_PWD: DB_PASSWORD,
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    PROMETHEUS_ENDPOINT: `127.0.0.1:${ports.serverMetrics}`,
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    DYNAMIC_CONFIG_FILE_PATH: join(REPO_ROOT, SHARED_FILES.dynamicConfig),
    TEMPORAL_TLS_SERVER_CERT: certs.serverCert,
    TEMPORAL_TLS_SERVER_KEY: certs.serverKey,
    TEMPORAL_TLS_SERVER_CA_CERT: certs.caCert,
    TEMPORAL_TLS_FRONTEND_CERT: certs.clientCert,
    TEMPORAL_TLS_FRONTEND_KEY: certs.clientKey,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: 'localhost',
  };
}

// --- PostgreSQL ---------------------------------------------------------------------------------

/** The directory of PostgreSQL's server binaries (Debian's layout), installing it as root if missing. */
export async function ensurePostgresBinaries(log: (l: string) => void): Promise<string> {
  const find = () => {
    const base = '/usr/lib/postgresql';
    if (!existsSync(base)) return undefined;
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    return versions[0] ? join(base, versions[0], 'bin') : undefined;
  };
  const found = find();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new ClusterError(
      'PostgreSQL is not installed: run `sudo apt-get install -y postgresql` (Debian/Ubuntu) once',
    );
  }
  log('PostgreSQL is not installed: apt-get install -y postgresql (one time) ...');
  const started = Date.now();
  await execFileAsync('apt-get', ['update'], { maxBuffer: 64 * 1024 * 1024 });
  await execFileAsync('apt-get', ['install', '-y', 'postgresql'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 1024 * 1024,
  });
  log(`Installed PostgreSQL in ${Math.round((Date.now() - started) / 1000)} s`);
  const after = find();
  if (!after) throw new ClusterError('apt-get installed postgresql but no server binary was found');
  return after;
}

/** PostgreSQL refuses to run as root: the unprivileged account it runs as (created if needed). */
function postgresAccount(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = (name: string) => {
    const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (r.status !== 0) return undefined;
    const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()), name };
  };
  const existing = lookup('postgres') ?? lookup('hbo-postgres');
  if (existing) return existing;
  spawnSync('useradd', [
    '--system',
    '--no-create-home',
    '--shell',
    '/usr/sbin/nologin',
    'hbo-postgres',
  ]);
  const created = lookup('hbo-postgres');
  if (!created)
    throw new ClusterError('could not create the hbo-postgres account to run PostgreSQL as');
  return created;
}

/**
 * PostgreSQL's account must reach its data directory: give "others" the execute (traverse, not
 * read) bit on the ancestors that lack it (e.g. a private mkdtemp directory).
 */
function allowTraversal(dir: string): void {
  for (let d = dir; ; d = dirname(d)) {
    const mode = statSync(d).mode;
    if ((mode & 0o001) === 0) chmodSync(d, (mode & 0o7777) | 0o001);
    if (dirname(d) === d) break;
  }
}

// --- the cluster --------------------------------------------------------------------------------

export interface ClusterOptions {
  /** @default `<repo>/.data/cluster` */
  readonly dataDir?: string;
  /** @default 17233 */
  readonly basePort?: number;
  readonly log?: (line: string) => void;
  /**
   * mTLS on the frontend. Off only to run releases of the product that predate TLS support (the
   * deploy drill from an old revision). @default true
   */
  readonly tls?: boolean;
  /** Server log level (the server's own logs go to `<dataDir>/logs/temporal.log`). @default 'warn' */
  readonly serverLogLevel?: string;
}

export interface ClusterProcesses {
  readonly ports: ClusterPorts;
  readonly address: string;
  readonly certs: CertificateSet;
  /** The variables a client needs (also written to `<dataDir>/env.sh`). */
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly security: TemporalSecurity;
  readonly uiUrl: string;
  readonly dataDir: string;
  readonly binaries: ClusterBinaryPaths;
  /** Starts the UI (after the codec server, whose endpoint it needs); once. */
  startUi(codecEndpoint?: string): void;
  /** Stops and starts the Temporal server process (SIGTERM, then a fresh start). */
  restartTemporal(kill?: boolean): Promise<void>;
  /** Stops PostgreSQL (fast shutdown) and starts it again on the same data. */
  restartPostgres(): Promise<void>;
  /** The pids of the running Temporal server and PostgreSQL (its postmaster), for CPU figures. */
  pids(): { temporal?: number; postgres?: number };
  stop(): Promise<void>;
}

interface Child {
  proc: ChildProcess;
  name: string;
}

/**
 * Starts PostgreSQL, sets up the schemas, starts the Temporal server and the UI server, registers
 * the namespace and search attributes. The application side (codec server, simulator, workers)
 * is started by the caller (tools/temporal-server/cluster-main.ts), which owns the product's config.
 */
export async function startClusterInfrastructure(
  options: ClusterOptions = {},
): Promise<ClusterProcesses> {
  const log = options.log ?? ((l: string) => console.error(l));
  const dataDir = options.dataDir ?? join(REPO_ROOT, '.data', 'cluster');
  const base = options.basePort ?? DEFAULT_CLUSTER_BASE_PORT;
  const ports = clusterPorts(base);
  const logsDir = join(dataDir, 'logs');
  mkdirSync(logsDir, { recursive: true });

  const busy = await busyPorts(ports);
  if (busy.length > 0) throw new ClusterError(busy.join('\n'));

  const binaries = await ensureClusterBinaries({ log });
  const cli = await resolveTemporalCli({ log, allowDownload: false });
  if (cli.kind !== 'binary') throw new ClusterError('the Temporal CLI is needed for the setup');
  const pgBin = await ensurePostgresBinaries(log);
  const certs = await makeCertificates(join(dataDir, 'certs'));

  const children: Child[] = [];
  const spawnLogged = (
    name: string,
    cmd: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    extra: { uid?: number; gid?: number; cwd?: string } = {},
  ): ChildProcess => {
    const logFile = join(logsDir, `${name}.log`);
    appendFileSync(logFile, `--- ${new Date().toISOString()} start ${name}\n`);
    const proc = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...extra });
    proc.stdout?.on('data', (c: Buffer) => appendFileSync(logFile, c));
    proc.stderr?.on('data', (c: Buffer) => appendFileSync(logFile, c));
    proc.on('error', (err) => appendFileSync(logFile, `spawn error: ${err.message}\n`));
    const child = { proc, name };
    children.push(child);
    proc.once('exit', () => {
      const i = children.indexOf(child);
      if (i >= 0) children.splice(i, 1);
    });
    return proc;
  };
  const stopChild = async (
    proc: ChildProcess,
    signal: NodeJS.Signals = 'SIGTERM',
    graceMs = 20_000,
  ) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  // --- PostgreSQL ---
  const pgData = join(dataDir, 'postgres');
  const account = postgresAccount();
  const asPg = account ? { uid: account.uid, gid: account.gid } : {};
  if (!existsSync(join(pgData, 'PG_VERSION'))) {
    mkdirSync(pgData, { recursive: true, mode: 0o700 });
    if (account) {
      chownSync(pgData, account.uid, account.gid);
      allowTraversal(dirname(pgData));
    }
    log(`Creating the PostgreSQL database in ${pgData} (first start) ...`);
    const r = spawnSync(
      join(pgBin, 'initdb'),
      [
        '-D',
        pgData,
        '-U',
        'postgres',
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '-E',
        'UTF8',
      ],
      { ...asPg, encoding: 'utf8', env: { PATH: process.env.PATH, LANG: 'C.UTF-8' } },
    );
    if (r.status !== 0) throw new ClusterError(`initdb failed: ${(r.stderr || r.stdout).trim()}`);
  }
  let postgres: ChildProcess | undefined;
  const startPostgres = async () => {
    postgres = spawnLogged(
      'postgres',
      join(pgBin, 'postgres'),
      [
        '-D',
        pgData,
        '-p',
        String(ports.postgres),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${pgData}`,
      ],
      { PATH: process.env.PATH, LANG: 'C.UTF-8' },
      asPg,
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = spawnSync(join(pgBin, 'pg_isready'), [
        '-q',
        '-h',
        '127.0.0.1',
        '-p',
        String(ports.postgres),
      ]);
      if (r.status === 0) break;
      if (postgres.exitCode !== null) {
        throw new ClusterError(`PostgreSQL exited at start; see ${join(logsDir, 'postgres.log')}`);
      }
      if (Date.now() > deadline)
        throw new ClusterError('PostgreSQL did not accept connections in 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    await startPostgres();
    const psql = (sql: string) =>
      spawnSync(
        'psql',
        [
          '-h',
          pgData,
          '-p',
          String(ports.postgres),
          '-U',
          'postgres',
          '-d',
          'postgres',
          '-tAc',
          sql,
        ],
        { encoding: 'utf8', env: { PATH: process.env.PATH } },
      );
    const role = psql(`SELECT 1 FROM pg_roles WHERE rolname = '${DB_USER}'`);
    if (role.status !== 0) throw new ClusterError(`psql failed: ${role.stderr.trim()}`);
    if (role.stdout.trim() !== '1') {
      const r = psql(`CREATE ROLE ${DB_USER} LOGIN SUPERUSER PASSWORD '${DB_PASSWORD}'`);
      if (r.status !== 0)
        throw new ClusterError(`creating the ${DB_USER} role failed: ${r.stderr.trim()}`);
    }

    // --- schemas, with the script docker-compose runs ---
    const setupStarted = Date.now();
    const schema = spawnSync('sh', [join(REPO_ROOT, SHARED_FILES.setupPostgres)], {
      encoding: 'utf8',
      env: {
        PATH: `${pgBin}:${process.env.PATH}`,
        POSTGRES_SEEDS: '127.0.0.1',
        DB_PORT: String(ports.postgres),
        POSTGRES_USER: DB_USER,
        SQL_PASSWORD: DB_PASSWORD,
        TEMPORAL_SQL_TOOL: binaries['temporal-sql-tool'],
      },
    });
    appendFileSync(join(logsDir, 'setup.log'), schema.stdout + schema.stderr);
    if (schema.status !== 0) {
      throw new ClusterError(
        `schema setup failed: ${(schema.stderr || schema.stdout).trim().split('\n').slice(-3).join(' | ')}`,
      );
    }
    log(
      `PostgreSQL ready on 127.0.0.1:${ports.postgres}, schemas up to date (${Date.now() - setupStarted} ms)`,
    );
  } catch (err) {
    // Nothing left running when the start fails before the server (the caller may remove dataDir).
    if (postgres) await stopChild(postgres, 'SIGINT', 30_000);
    throw err;
  }

  // --- Temporal server ---
  const address = `localhost:${ports.frontend}`;
  const tlsOn = options.tls ?? true;
  const clientEnv: Record<string, string> = tlsOn
    ? {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_TLS_CERT: certs.clientCert,
        TEMPORAL_TLS_KEY: certs.clientKey,
        TEMPORAL_TLS_CA: certs.caCert,
        TEMPORAL_TLS_SERVER_NAME: 'localhost',
      }
    : { TEMPORAL_ADDRESS: address };
  const security = loadTemporalSecurity(clientEnv);
  const serverEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ...clusterServerEnv(ports, certs, { logLevel: options.serverLogLevel }),
  };
  if (!tlsOn) {
    for (const k of Object.keys(serverEnv)) if (k.startsWith('TEMPORAL_TLS_')) delete serverEnv[k];
  }
  let server: ChildProcess | undefined;
  const startTemporal = async () => {
    const started = Date.now();
    server = spawnLogged(
      'temporal',
      binaries['temporal-server'],
      [
        '--root',
        REPO_ROOT,
        '--config',
        SHARED_FILES.serverConfigDir,
        '--env',
        'cluster',
        '--allow-no-auth',
        'start',
      ],
      serverEnv,
    );
    const s = server;
    await Promise.race([
      waitForTemporal(address, 120_000, 'temporal-system', security),
      new Promise<never>((_, reject) =>
        s.once('exit', (code, signal) =>
          reject(
            new ClusterError(
              `the Temporal server exited (${signal ?? code}) before it was ready; see ${join(logsDir, 'temporal.log')}`,
            ),
          ),
        ),
      ),
    ]);
    log(
      `Temporal server ${address} ready in ${Date.now() - started} ms (${tlsOn ? 'mTLS' : 'no TLS'}, ${CLUSTER_HISTORY_SHARDS} history shards)`,
    );
  };

  // --- UI server ---
  const uiDir = join(dataDir, 'ui');
  const startUi = (codecEndpoint: string | undefined) => {
    mkdirSync(join(uiDir, 'config'), { recursive: true });
    writeFileSync(
      join(uiDir, 'config', 'cluster.yaml'),
      [
        '# Written by npm run cluster (tools/temporal-server/cluster.ts) at every start.',
        `temporalGrpcAddress: ${address}`,
        'host: 127.0.0.1',
        `port: ${ports.ui}`,
        'enableUi: true',
        'defaultNamespace: default',
        'cors:',
        '  allowOrigins:',
        `    - http://localhost:${ports.ui}`,
        ...(tlsOn
          ? [
              'tls:',
              `  caFile: ${certs.caCert}`,
              `  certFile: ${certs.clientCert}`,
              `  keyFile: ${certs.clientKey}`,
              '  serverName: localhost',
              '  enableHostVerification: true',
            ]
          : []),
        ...(codecEndpoint ? ['codec:', `  endpoint: ${codecEndpoint}`] : []),
        '',
      ].join('\n'),
    );
    spawnLogged(
      'ui',
      binaries['temporal-ui-server'],
      ['--root', uiDir, '--config', 'config', '--env', 'cluster', 'start'],
      { PATH: process.env.PATH },
    );
  };

  const stopAll = async () => {
    for (const c of [...children].reverse()) {
      if (c.name === 'postgres') continue;
      await stopChild(c.proc);
    }
    // PostgreSQL last: SIGINT = fast shutdown (clean, no recovery at the next start).
    if (postgres) await stopChild(postgres, 'SIGINT', 30_000);
  };

  try {
    await startTemporal();
    // --- namespace and search attributes, with the script docker-compose runs ---
    const ns = spawnSync('sh', [join(REPO_ROOT, SHARED_FILES.setupNamespace)], {
      encoding: 'utf8',
      env: {
        PATH: `${dirname(cli.path)}:${process.env.PATH}`,
        HOME: process.env.HOME,
        ...clientEnv,
        TEMPORAL_NAMESPACE: 'default',
        NAMESPACE_RETENTION: '72h',
      },
    });
    appendFileSync(join(logsDir, 'setup.log'), ns.stdout + ns.stderr);
    if (ns.status !== 0) {
      throw new ClusterError(
        `namespace setup failed: ${(ns.stderr || ns.stdout).trim().split('\n').slice(-3).join(' | ')}`,
      );
    }
    // The script registered them; checked once more through our own client (and TLS).
    const connection = await Connection.connect(
      temporalConnectionOptions({ ...security, address }),
    );
    try {
      await ensureSearchAttributes(connection, 'default');
    } finally {
      await connection.close();
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  writeFileSync(
    join(dataDir, 'env.sh'),
    '# Written by npm run cluster: `. .data/cluster/env.sh` to use the cluster from a shell.\n' +
      Object.entries(clientEnv)
        .map(([k, v]) => `export ${k}=${v}`)
        .join('\n') +
      '\n',
  );

  let uiStarted = false;
  return {
    ports,
    address,
    certs,
    clientEnv,
    security,
    uiUrl: `http://localhost:${ports.ui}`,
    dataDir,
    binaries,
    startUi(codecEndpoint?: string) {
      if (uiStarted) return;
      uiStarted = true;
      startUi(codecEndpoint);
    },
    async restartTemporal(kill = false) {
      if (server) await stopChild(server, kill ? 'SIGKILL' : 'SIGTERM');
      await startTemporal();
    },
    async restartPostgres() {
      if (postgres) await stopChild(postgres, 'SIGINT', 30_000);
      await startPostgres();
    },
    pids() {
      return {
        ...(server?.pid !== undefined ? { temporal: server.pid } : {}),
        ...(postgres?.pid !== undefined ? { postgres: postgres.pid } : {}),
      };
    },
    stop: stopAll,
  };
}
