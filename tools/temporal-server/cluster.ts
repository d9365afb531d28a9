/**
 * The production topology on one machine, natively (no Docker): PostgreSQL, one Temporal server
 * node or several (the release releases.ts selects, the newest by default) (frontend with mTLS) configured from deploy/temporal/ — the same files
 * docker-compose mounts — a balancer in front of several nodes' frontends, and the Temporal UI
 * server. The application side (codec server, simulator, workers) is tools/stack/cluster-stack.ts.
 * Everything lives under one data directory (`.data/cluster/`): a second start reuses the
 * database, so every workflow is kept.
 *
 * Every node runs every service (frontend, history, matching, worker), as on the machines of a
 * small deployment: a node that dies takes one copy of each away, and the others take over its
 * history shards and task queue partitions. Ports come from one base port (cluster-ports.ts); a
 * busy port stops the start with one line naming it.
 */
import { type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Connection } from '@temporalio/client';
import {
  temporalConnectionOptions,
  type TemporalSecurity,
} from '../../src/client/connection-options';
import { loadTemporalSecurity } from '../../src/config/temporal-security';
import { makeCertificates, type CertificateSet } from './certificates';
import { resolveTemporalCli } from './cli-binary';
import { balancerCommand, ensureNginx } from './cluster-balancer';
import { ensureClusterBinaries, type ClusterBinaryPaths } from './cluster-binaries';
import { ClusterError } from './cluster-error';
import {
  DB_PASSWORD,
  DB_USER,
  ensurePostgresBinaries,
  setUpSchemas,
  startLocalPostgres,
  type LocalPostgres,
} from './cluster-postgres';
import {
  clusterPorts,
  maxBasePort,
  namedPorts,
  type ClusterPorts,
  type NodePorts,
} from './cluster-ports';
import { ProcessGroup, stopProcess } from './cluster-processes';
import { ensureSearchAttributes, readServerVersion, waitForTemporal } from './dev-server';
import { uiServerArgs } from './ui-server';
import { compareReleases, type TemporalRelease } from '../../src/shared/temporal-releases';
import { selectedRelease } from './selected-release';

export { ClusterError } from './cluster-error';

/** The repository root: deploy/ is read from here. */
export const REPO_ROOT = join(__dirname, '..', '..');
/** The files both topologies share (docker-compose mounts them; the cluster reads them here). */
export const SHARED_FILES = {
  serverConfig: 'deploy/temporal/config/cluster.yaml',
  dynamicConfig: 'deploy/temporal/dynamicconfig/development-sql.yaml',
  setupPostgres: 'deploy/temporal/setup-postgres.sh',
  setupNamespace: 'deploy/temporal/setup-namespace.sh',
} as const;

export const DEFAULT_CLUSTER_BASE_PORT = 17233;
/**
 * History shards of a new database (the count is fixed when the database is created: the stored
 * value wins over the config). 16 spread evenly enough over one to five nodes.
 */
export const CLUSTER_HISTORY_SHARDS = 16;
/** Highest base port of a one-node cluster. */
export const MAX_CLUSTER_BASE_PORT = maxBasePort(1);

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * Records the release a data directory's database was last set up by, and refuses an older one:
 * Temporal's schemas only move forward (an older server on a newer schema is not supported).
 */
export function claimDataDir(dataDir: string, release: TemporalRelease): void {
  const file = join(dataDir, 'temporal-release');
  const recorded = existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  if (recorded !== undefined && compareReleases(recorded, release) > 0) {
    throw new ClusterError(
      `${dataDir} holds a database of Temporal ${recorded}; ${release} cannot run on it (schemas only move forward): choose another data directory (--data-dir) or TEMPORAL_RELEASE=${recorded}`,
    );
  }
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${release}\n`);
}

/** One line per busy port, naming who needs it and how to move. */
export async function busyPorts(ports: ClusterPorts): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, port] of namedPorts(ports)) {
    if (!(await portFree(port))) {
      problems.push(
        `port ${port} (${name}) is in use: stop what listens there (a cluster already running?) or pass --base-port`,
      );
    }
  }
  return problems;
}

/**
 * The environment the shared server config template (deploy/temporal/config/cluster.yaml) is
 * rendered from for node `node`, natively (pure; docker-compose sets the same variables for its
 * container). Every node names the same cluster address (the one clients use), since a node with
 * another value rewrites the stored one at its start.
 */
export function clusterServerEnv(
  ports: ClusterPorts,
  node: number,
  certs: Pick<CertificateSet, 'serverCert' | 'serverKey' | 'caCert' | 'clientCert' | 'clientKey'>,
  options: { logLevel?: string | undefined } = {},
): Record<string, string> {
  const n = ports.nodes[node];
  if (!n) throw new ClusterError(`no node ${node + 1} in a cluster of ${ports.nodes.length}`);
  return {
    LOG_LEVEL: options.logLevel ?? 'warn',
    NUM_HISTORY_SHARDS: String(CLUSTER_HISTORY_SHARDS),
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(ports.postgres),
    POSTGRES_USER: DB_USER,
    POSTGRES_PWD: DB_PASSWORD,
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    TEMPORAL_CLUSTER_RPC_ADDRESS: `127.0.0.1:${ports.frontend}`,
    PROMETHEUS_ENDPOINT: `127.0.0.1:${n.metrics}`,
    FRONTEND_GRPC_PORT: String(n.frontend),
    FRONTEND_HTTP_PORT: String(n.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(n.frontendMembership),
    HISTORY_GRPC_PORT: String(n.history),
    HISTORY_MEMBERSHIP_PORT: String(n.historyMembership),
    MATCHING_GRPC_PORT: String(n.matching),
    MATCHING_MEMBERSHIP_PORT: String(n.matchingMembership),
    WORKER_GRPC_PORT: String(n.worker),
    WORKER_MEMBERSHIP_PORT: String(n.workerMembership),
    DYNAMIC_CONFIG_FILE_PATH: join(REPO_ROOT, SHARED_FILES.dynamicConfig),
    TEMPORAL_TLS_SERVER_CERT: certs.serverCert,
    TEMPORAL_TLS_SERVER_KEY: certs.serverKey,
    TEMPORAL_TLS_SERVER_CA_CERT: certs.caCert,
    TEMPORAL_TLS_FRONTEND_CERT: certs.clientCert,
    TEMPORAL_TLS_FRONTEND_KEY: certs.clientKey,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: 'localhost',
  };
}

/** The history shards a node's metrics say it owns (`numshards_gauge`), if it reports them. */
export function ownedShards(metricsText: string): number | undefined {
  const m = /^numshards_gauge\{[^}]*service_name="history"[^}]*\} (\d+(?:\.\d+)?)$/m.exec(
    metricsText,
  );
  return m ? Number(m[1]) : undefined;
}

/** The server's service roles as `cluster_membership.role` stores them. */
export const MEMBERSHIP_ROLES: Readonly<Record<number, string>> = {
  1: 'frontend',
  2: 'history',
  3: 'matching',
  4: 'worker',
};

/**
 * Which nodes (by index) each role's live members are, from `cluster_membership` rows heartbeated
 * in the last `withinSeconds` (pure: the rows are `role|rpc_port` lines).
 */
export function membershipByRole(rows: string, ports: ClusterPorts): Record<string, number[]> {
  const byPort = new Map<number, number>();
  ports.nodes.forEach((n, i) => {
    for (const p of [
      n.frontendMembership,
      n.historyMembership,
      n.matchingMembership,
      n.workerMembership,
    ]) {
      byPort.set(p, i);
    }
  });
  const out: Record<string, number[]> = Object.fromEntries(
    Object.values(MEMBERSHIP_ROLES).map((r) => [r, [] as number[]]),
  );
  for (const line of rows.split('\n')) {
    const [role, port] = line.split('|').map(Number);
    const name = MEMBERSHIP_ROLES[role!];
    const node = byPort.get(port!);
    if (name && node !== undefined && !out[name]!.includes(node)) out[name]!.push(node);
  }
  for (const list of Object.values(out)) list.sort((a, b) => a - b);
  return out;
}

// --- the cluster --------------------------------------------------------------------------------

export interface ClusterOptions {
  /** @default `<repo>/.data/cluster` */
  readonly dataDir?: string;
  /** @default 17233 */
  readonly basePort?: number;
  /** Server nodes; several get a balancer in front of their frontends. @default 1 */
  readonly nodes?: number;
  readonly log?: (line: string) => void;
  /**
   * mTLS on the frontend. Off only to run releases of the product that predate TLS support (the
   * deploy drill from an old revision). @default true
   */
  readonly tls?: boolean;
  /** Server log level (each node's own logs go to `<dataDir>/logs/`). @default 'warn' */
  readonly serverLogLevel?: string;
  /** The Temporal release the nodes run. @default the one TEMPORAL_RELEASE names, the newest */
  readonly release?: TemporalRelease;
}

/** Between two nodes' replacements in an upgrade: the shards of the one back move to it. */
const NODE_SETTLE_MS = 10_000;

/** One node replaced by the new release's binary, as {@link ClusterProcesses.upgradeTo} did it. */
export interface NodeUpgrade {
  readonly node: number;
  /** When it was stopped (ms since the epoch). */
  readonly at: number;
  /** From its stop until the new binary answered, ms. */
  readonly replacedMs: number;
}

/** One server node as the caller sees it. */
export interface ClusterNode {
  /** 1, 2, 3 … */
  readonly number: number;
  readonly ports: NodePorts;
  /** Its own frontend (the balancer's upstream). */
  readonly address: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  readonly logFile: string;
}

export interface ClusterProcesses {
  readonly ports: ClusterPorts;
  /** The address clients and workers use (the one node's frontend, or the balancer). */
  readonly address: string;
  readonly certs: CertificateSet;
  /** The variables a client needs (also written to `<dataDir>/env.sh`). */
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly security: TemporalSecurity;
  readonly uiUrl: string;
  readonly dataDir: string;
  readonly binaries: ClusterBinaryPaths;
  /** The database's history shard count (fixed when it was created). */
  readonly shards: number;
  /** As the server reports it (GetSystemInfo), e.g. `1.32.2`; after an upgrade, the new one. */
  readonly serverVersion: string;
  /**
   * Upgrades the running cluster to `release` as Temporal documents it: the schemas first (the
   * new release's SQL tool), then each node in turn stopped (SIGTERM) and started on the new
   * binary, the next only once it serves. Skip no minor release.
   */
  upgradeTo(release: TemporalRelease): Promise<NodeUpgrade[]>;
  readonly nodes: readonly ClusterNode[];
  /** Starts the UI (after the codec server, whose endpoint it needs); once. */
  startUi(codecEndpoint?: string): void;
  /** Sends node `number` a signal (SIGKILL by default) and waits until it has exited. */
  killNode(number: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts node `number` again and waits until its frontend answers. */
  startNode(number: number): Promise<void>;
  /** Stops and starts every node (SIGTERM, or SIGKILL with `kill`), one after the other. */
  restartTemporal(kill?: boolean): Promise<void>;
  /** Stops PostgreSQL (fast shutdown) and starts it again on the same data. */
  restartPostgres(): Promise<void>;
  /** Each role's live members, by node number, from the servers' own membership table. */
  membership(withinSeconds?: number): Record<string, number[]>;
  /**
   * History shards each running node owns now, by node number, from its own metrics
   * (`numshards_gauge`); a node that is down or does not answer is absent.
   */
  shardsByNode(): Promise<Record<number, number>>;
  /** The pids of the running nodes, the balancer and PostgreSQL (its postmaster), for CPU figures. */
  pids(): { nodes: (number | undefined)[]; balancer?: number; postgres?: number };
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL, sets up the schemas, starts the Temporal server nodes (and the balancer in
 * front of several), registers the namespace and search attributes. The UI starts when the
 * caller has its codec server (`startUi`).
 */
export async function startClusterInfrastructure(
  options: ClusterOptions = {},
): Promise<ClusterProcesses> {
  const log = options.log ?? ((l: string) => console.error(l));
  const dataDir = options.dataDir ?? join(REPO_ROOT, '.data', 'cluster');
  const nodeCount = options.nodes ?? 1;
  const ports = clusterPorts(options.basePort ?? DEFAULT_CLUSTER_BASE_PORT, nodeCount);
  const processes = new ProcessGroup(join(dataDir, 'logs'));

  const busy = await busyPorts(ports);
  if (busy.length > 0) throw new ClusterError(busy.join('\n'));
  const release = options.release ?? selectedRelease();
  claimDataDir(dataDir, release);

  const binaries = await ensureClusterBinaries({ log, release });
  const cli = await resolveTemporalCli({ log, allowDownload: false });
  if (cli.kind !== 'binary') throw new ClusterError('the Temporal CLI is needed for the setup');
  const pgBin = await ensurePostgresBinaries(log);
  const nginx = nodeCount > 1 ? await ensureNginx(log) : undefined;
  const certs = await makeCertificates(join(dataDir, 'certs'));

  const schemaSetup = {
    script: join(REPO_ROOT, SHARED_FILES.setupPostgres),
    pgBin,
    port: ports.postgres,
    logFile: processes.logFile('setup'),
  };
  const postgres = await startLocalPostgres({
    pgBin,
    dataDir,
    port: ports.postgres,
    processes,
    log,
  });
  try {
    const setupStarted = Date.now();
    setUpSchemas({ ...schemaSetup, sqlTool: binaries['temporal-sql-tool'] });
    log(
      `PostgreSQL ready on 127.0.0.1:${ports.postgres}, schemas up to date (${Date.now() - setupStarted} ms)`,
    );
  } catch (err) {
    // Nothing left running when the start fails before the server (the caller may remove dataDir).
    await postgres.stop();
    throw err;
  }

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
  const nodes = new ServerNodes({
    ports,
    processes,
    serverBinary: binaries['temporal-server'],
    env: (i) => {
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        ...clusterServerEnv(ports, i, certs, { logLevel: options.serverLogLevel }),
      };
      if (!tlsOn)
        for (const k of Object.keys(env)) if (k.startsWith('TEMPORAL_TLS_')) delete env[k];
      return env;
    },
    security,
    postgres,
    log,
  });
  let balancer: ChildProcess | undefined;
  const stopAll = async () => {
    for (const c of processes.running().reverse()) {
      if (c.name === 'postgres') continue;
      await stopProcess(c.proc);
    }
    // PostgreSQL last: SIGINT = fast shutdown (clean, no recovery at the next start).
    await postgres.stop();
  };

  let shards: number;
  let serverVersion: string;
  try {
    await nodes.startAll();
    if (nginx) {
      const { command, args } = balancerCommand(nginx, {
        listenPort: ports.frontend,
        upstreamPorts: ports.nodes.map((n) => n.frontend),
        dir: join(dataDir, 'balancer'),
      });
      balancer = processes.spawn('balancer', command, args, { PATH: process.env.PATH });
      await waitForTemporal(address, 30_000, 'temporal-system', security);
      log(
        `Balancer ${address} → ${ports.nodes.map((n) => n.frontend).join(', ')} (nginx stream, mTLS passed through)`,
      );
    }
    shards = Number(postgres.query('SELECT count(*) FROM shards', 'temporal'));
    if (shards !== CLUSTER_HISTORY_SHARDS) {
      log(
        `This database has ${shards} history shards (fixed when it was created; a new data directory gets ${CLUSTER_HISTORY_SHARDS})`,
      );
    }
    await setUpNamespace({ cliPath: cli.path, clientEnv, security, address, processes });
    serverVersion = await readServerVersion(address, security);
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
  const upgradeTo = async (release: TemporalRelease): Promise<NodeUpgrade[]> => {
    const next = await ensureClusterBinaries({ log, release });
    const started = Date.now();
    setUpSchemas({ ...schemaSetup, sqlTool: next['temporal-sql-tool'] });
    log(`Schemas updated for Temporal ${release} in ${Date.now() - started} ms`);
    claimDataDir(dataDir, release);
    const steps = await nodes.replaceEach(next['temporal-server']);
    view.serverVersion = await readServerVersion(address, security);
    return steps;
  };
  const view: { -readonly [K in keyof ClusterProcesses]: ClusterProcesses[K] } = {
    ports,
    address,
    certs,
    clientEnv,
    security,
    uiUrl: `http://localhost:${ports.ui}`,
    dataDir,
    binaries,
    shards,
    serverVersion,
    nodes: nodes.view,
    startUi(codecEndpoint?: string) {
      if (uiStarted) return;
      uiStarted = true;
      const args = uiServerArgs({
        dir: join(dataDir, 'ui'),
        address,
        port: ports.ui,
        certs: tlsOn ? certs : undefined,
        codecEndpoint,
      });
      processes.spawn('ui', binaries['temporal-ui-server'], args, { PATH: process.env.PATH });
    },
    killNode: (number, signal = 'SIGKILL') => nodes.kill(number - 1, signal),
    startNode: (number) => nodes.start(number - 1),
    async restartTemporal(kill = false) {
      for (let i = 0; i < ports.nodes.length; i++) {
        await nodes.kill(i, kill ? 'SIGKILL' : 'SIGTERM');
        await nodes.start(i);
      }
    },
    restartPostgres: () => postgres.restart(),
    membership: (withinSeconds = 20) => nodes.membership(withinSeconds),
    async shardsByNode() {
      const out: Record<number, number> = {};
      for (const n of nodes.view.filter((x) => x.running)) {
        const text = await fetch(`http://127.0.0.1:${n.ports.metrics}/metrics`, {
          signal: AbortSignal.timeout(2_000),
        })
          .then((r) => r.text())
          .catch(() => '');
        const owned = ownedShards(text);
        if (owned !== undefined) out[n.number] = owned;
      }
      return out;
    },
    pids() {
      return {
        nodes: nodes.view.map((n) => n.pid),
        ...(balancer?.pid !== undefined ? { balancer: balancer.pid } : {}),
        ...(postgres.pid !== undefined ? { postgres: postgres.pid } : {}),
      };
    },
    stop: stopAll,
    upgradeTo,
  };
  return view;
}

/** The namespace and search attributes, with the script docker-compose runs; checked after. */
async function setUpNamespace(o: {
  readonly cliPath: string;
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly security: TemporalSecurity;
  readonly address: string;
  readonly processes: ProcessGroup;
}): Promise<void> {
  const ns = spawnSync('sh', [join(REPO_ROOT, SHARED_FILES.setupNamespace)], {
    encoding: 'utf8',
    env: {
      PATH: `${dirname(o.cliPath)}:${process.env.PATH}`,
      HOME: process.env.HOME,
      ...o.clientEnv,
      TEMPORAL_NAMESPACE: 'default',
      NAMESPACE_RETENTION: '72h',
    },
  });
  appendFileSync(o.processes.logFile('setup'), ns.stdout + ns.stderr);
  if (ns.status !== 0) {
    throw new ClusterError(
      `namespace setup failed: ${(ns.stderr || ns.stdout).trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  // The script registered them; checked once more through our own client (and TLS).
  const connection = await Connection.connect(
    temporalConnectionOptions({ ...o.security, address: o.address }),
  );
  try {
    await ensureSearchAttributes(connection, 'default');
  } finally {
    await connection.close();
  }
}

/** The server node processes: start, kill, and their view for the caller. */
class ServerNodes {
  private readonly procs: (ChildProcess | undefined)[];
  readonly view: readonly ClusterNode[];
  /** The binary the next start runs (an upgrade changes it). */
  serverBinary: string;

  constructor(
    private readonly o: {
      readonly ports: ClusterPorts;
      readonly processes: ProcessGroup;
      readonly serverBinary: string;
      readonly env: (i: number) => NodeJS.ProcessEnv;
      readonly security: TemporalSecurity;
      readonly postgres: LocalPostgres;
      readonly log: (l: string) => void;
    },
  ) {
    this.procs = o.ports.nodes.map(() => undefined);
    this.serverBinary = o.serverBinary;
    this.view = o.ports.nodes.map((ports, i) => {
      const procs = this.procs;
      const name = this.name(i);
      return {
        number: i + 1,
        ports,
        address: `localhost:${ports.frontend}`,
        get pid() {
          return procs[i]?.pid;
        },
        get running() {
          const p = procs[i];
          return p !== undefined && p.exitCode === null && p.signalCode === null;
        },
        logFile: o.processes.logFile(name),
      };
    });
  }

  private name(i: number): string {
    return this.o.ports.nodes.length > 1 ? `temporal-node${i + 1}` : 'temporal';
  }

  /** Node 1 first (on a new database it creates the shards), then the others side by side. */
  async startAll(): Promise<void> {
    await this.start(0);
    await Promise.all(this.o.ports.nodes.slice(1).map((_, i) => this.start(i + 1)));
    if (this.o.ports.nodes.length > 1) await this.waitForMembership();
  }

  async start(i: number): Promise<void> {
    const started = Date.now();
    const node = this.view[i]!;
    const proc = this.o.processes.spawn(
      this.name(i),
      this.serverBinary,
      ['--config-file', join(REPO_ROOT, SHARED_FILES.serverConfig), '--allow-no-auth', 'start'],
      this.o.env(i),
    );
    this.procs[i] = proc;
    await Promise.race([
      waitForTemporal(node.address, 120_000, 'temporal-system', this.o.security),
      new Promise<never>((_, reject) =>
        proc.once('exit', (code, signal) =>
          reject(
            new ClusterError(
              `Temporal server node ${i + 1} exited (${signal ?? code}) before it was ready; see ${node.logFile}`,
            ),
          ),
        ),
      ),
    ]);
    const several = this.o.ports.nodes.length > 1;
    this.o.log(
      `Temporal server ${several ? `node ${i + 1} ` : ''}${node.address} ready in ${Date.now() - started} ms (pid ${proc.pid})`,
    );
  }

  /**
   * Each node in turn stopped (SIGTERM) and started on `binary`, the next once this one serves
   * and has had its shards back for a while: an upgrade, node by node.
   */
  async replaceEach(binary: string): Promise<NodeUpgrade[]> {
    this.serverBinary = binary;
    const steps: NodeUpgrade[] = [];
    for (let i = 0; i < this.o.ports.nodes.length; i++) {
      const at = Date.now();
      await this.kill(i, 'SIGTERM');
      await this.start(i);
      steps.push({ node: i + 1, at, replacedMs: Date.now() - at });
      if (i < this.o.ports.nodes.length - 1)
        await new Promise((r) => setTimeout(r, NODE_SETTLE_MS));
    }
    return steps;
  }

  async kill(i: number, signal: NodeJS.Signals): Promise<void> {
    const proc = this.procs[i];
    if (!proc) throw new ClusterError(`no node ${i + 1} was started`);
    await stopProcess(proc, signal);
  }

  membership(withinSeconds: number): Record<string, number[]> {
    const rows = this.o.postgres.query(
      `SELECT role || '|' || rpc_port FROM cluster_membership WHERE last_heartbeat > (now() AT TIME ZONE 'UTC') - interval '${withinSeconds} seconds'`,
      'temporal',
    );
    const byRole = membershipByRole(rows, this.o.ports);
    return Object.fromEntries(
      Object.entries(byRole).map(([role, nodes]) => [role, nodes.map((n) => n + 1)]),
    );
  }

  /** Until every role has a live member on every node (Temporal's own multi-node test waits so). */
  private async waitForMembership(): Promise<void> {
    const want = this.o.ports.nodes.length;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const seen = this.membership(20);
      if (Object.values(seen).every((nodes) => nodes.length === want)) return;
      if (Date.now() > deadline) {
        throw new ClusterError(
          `the nodes did not all join in 60 s (members by role: ${JSON.stringify(seen)}); see ${this.o.processes.logsDir}`,
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
