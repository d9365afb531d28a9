/**
 * The cluster's PostgreSQL: Debian's server binaries (installed as root when missing), a data
 * directory of its own, run as an unprivileged account, and the schemas set up with the script
 * docker-compose runs (deploy/temporal/setup-postgres.sh).
 */
import { execFile, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { stopProcess, type ProcessGroup } from './cluster-processes';
import { ClusterError } from './cluster-error';

const execFileAsync = promisify(execFile);

/** The database role and password of the local PostgreSQL (local only, like compose's). */
export const DB_USER = 'temporal';
export const DB_PASSWORD = 'temporal';
/** Room for five nodes' pools, the schema tool and psql. */
const MAX_CONNECTIONS = 600;

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

export interface LocalPostgres {
  readonly port: number;
  readonly pid: number | undefined;
  /** One SQL statement through psql on `db`; its trimmed output, or a ClusterError. */
  query(sql: string, db?: string): string;
  /** Fast shutdown (clean, no recovery at the next start). */
  stop(): Promise<void>;
  restart(): Promise<void>;
}

/**
 * Creates the database on the first start (initdb), starts PostgreSQL on 127.0.0.1:`port` and
 * waits until it accepts connections; ensures the role the server logs in with.
 */
export async function startLocalPostgres(input: {
  readonly pgBin: string;
  readonly dataDir: string;
  readonly port: number;
  readonly processes: ProcessGroup;
  readonly log: (l: string) => void;
}): Promise<LocalPostgres> {
  const { pgBin, port, processes, log } = input;
  const pgData = join(input.dataDir, 'postgres');
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
  let proc: ChildProcess | undefined;
  const start = async () => {
    proc = processes.spawn(
      'postgres',
      join(pgBin, 'postgres'),
      [
        '-D',
        pgData,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        // Every service of every node keeps its own pools (up to 30 connections each by the
        // server config): 100, PostgreSQL's default, is too few for three nodes.
        '-c',
        `max_connections=${MAX_CONNECTIONS}`,
        '-c',
        `unix_socket_directories=${pgData}`,
      ],
      { PATH: process.env.PATH, LANG: 'C.UTF-8' },
      asPg,
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = spawnSync(join(pgBin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]);
      if (r.status === 0) break;
      if (proc.exitCode !== null) {
        throw new ClusterError(`PostgreSQL exited at start; see ${processes.logFile('postgres')}`);
      }
      if (Date.now() > deadline)
        throw new ClusterError('PostgreSQL did not accept connections in 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const stop = async () => {
    if (proc) await stopProcess(proc, 'SIGINT', 30_000);
  };
  const query = (sql: string, db = 'postgres') => {
    const r = spawnSync(
      'psql',
      ['-h', pgData, '-p', String(port), '-U', 'postgres', '-d', db, '-tAc', sql],
      { encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    if (r.status !== 0) throw new ClusterError(`psql failed: ${r.stderr.trim()}`);
    return r.stdout.trim();
  };
  try {
    await start();
    if (query(`SELECT 1 FROM pg_roles WHERE rolname = '${DB_USER}'`) !== '1') {
      query(`CREATE ROLE ${DB_USER} LOGIN SUPERUSER PASSWORD '${DB_PASSWORD}'`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    port,
    get pid() {
      return proc?.pid;
    },
    query,
    stop,
    async restart() {
      await stop();
      await start();
    },
  };
}

/** The schemas, with the script docker-compose runs (idempotent: it updates an existing one). */
export function setUpSchemas(input: {
  readonly script: string;
  readonly pgBin: string;
  readonly port: number;
  readonly sqlTool: string;
  readonly logFile: string;
}): void {
  const r = spawnSync('sh', [input.script], {
    encoding: 'utf8',
    env: {
      PATH: `${input.pgBin}:${process.env.PATH}`,
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: String(input.port),
      POSTGRES_USER: DB_USER,
      SQL_PASSWORD: DB_PASSWORD,
      TEMPORAL_SQL_TOOL: input.sqlTool,
    },
  });
  appendFileSync(input.logFile, r.stdout + r.stderr);
  if (r.status !== 0) {
    throw new ClusterError(
      `schema setup failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
}
