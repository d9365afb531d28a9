/**
 * The stack the reliability tests and chaos drivers run against: the simulator in this process
 * (inspection on, so the supplier's side can be counted), a Temporal server (the test run's, or a
 * dev server of our own on a SQLite file that can be SIGKILLed and restarted), the worker as a
 * real subprocess configured by environment only, and a Temporal client.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { BookingClient } from '../../src/client';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import {
  loadTemporalSecurity,
  temporalSecurityEnvOf,
  type TemporalSecurityEnv,
} from '../../src/config/temporal-security';
import { createDataConverter, EncryptionCodec } from '../../src/codec';
import { parseEncryptionKeys } from '../../src/config/codec';
import type { EncryptionKey } from '../../src/codec/types';
import { buildSimulator, type Simulator, type SimulatorOptions } from '../simulator';
import { restartablePort, startDevServer, type DevServer } from '../temporal-server/dev-server';
import { bundleWorkflows } from '../../src/workflow-bundle';
import { WorkerProcess } from './worker-process';

/** The supplier account the stack's worker signs with (the secret is a sentinel by default). */
export interface ChaosCompany {
  readonly key: string;
  readonly secret: string;
}

export interface ChaosStackOptions {
  /** Names the task queue and the work directory. */
  readonly name: string;
  /** Where the dev server's DB, the bundle and logs go. */
  readonly workDir: string;
  /**
   * `{ address }`: an existing server (the test run's). `{ own: {} }`: a dev server of our own,
   * persisted in `<workDir>/temporal.db` (SQLite, WAL) so it can be killed and restarted.
   * `securityEnv`: the `TEMPORAL_TLS_*` / `TEMPORAL_API_KEY` variables to reach it with (the
   * client here and the worker subprocess alike).
   * @default { address: process.env.TEMPORAL_ADDRESS, securityEnv: the TEMPORAL_TLS_* of
   * process.env } when set, else { own: {} }
   */
  readonly temporal?:
    | { readonly address: string; readonly securityEnv?: TemporalSecurityEnv }
    | { readonly own: { readonly dbFile?: string; readonly inMemory?: boolean } };
  readonly simulator?: SimulatorOptions;
  /** @default a `chaos-key-…` key with a random secret */
  readonly company?: ChaosCompany;
  /** Extra or overriding worker environment (e.g. HOTEL_API_CLOCK_CORRECTION). */
  readonly workerEnv?: Readonly<Record<string, string>>;
  /** Node arguments of the worker process (e.g. the memory probe's `--import`). */
  readonly workerNodeArgs?: readonly string[];
  /**
   * `PAYLOAD_ENCRYPTION_KEYS` for the worker (`id:base64,…`); the client encrypts and decrypts
   * with the same keys. @default one fresh random key
   */
  readonly encryptionKeys?: string;
  /**
   * The workflow bundle the worker loads (`WORKFLOW_BUNDLE_PATH`).
   * @default process.env.WORKFLOW_BUNDLE_PATH when it exists, else a bundle built once here
   */
  readonly bundle?: string;
  /** Append the worker's output to this file too. */
  readonly workerLogFile?: string;
  /** Start the worker and wait until it polls. @default true */
  readonly startWorker?: boolean;
  readonly log?: (line: string) => void;
}

export interface ChaosStack {
  readonly sim: Simulator;
  /** The simulator origin (`http://127.0.0.1:<port>`), HOTEL_API_BASE_URL of the worker. */
  readonly simOrigin: string;
  readonly company: ChaosCompany;
  readonly taskQueue: string;
  readonly worker: WorkerProcess;
  readonly temporalAddress: string;
  /** Our own dev server, when the stack started one. */
  readonly devServer: DevServer | undefined;
  readonly dbFile: string | undefined;
  readonly connection: Connection;
  readonly client: Client;
  readonly bookings: BookingClient;
  /** A client without the codec: reads payloads as the server stores them. */
  readonly rawClient: Client;
  /** The codec with the worker's keys, for decoding raw histories. */
  readonly codec: PayloadCodec;
  readonly encryptionKeys: string;
  /** Supplier requests being handled right now, by endpoint path (`/booking`, …). */
  inFlight(): { total: number; booking: number };
  /** SIGKILLs our own dev server; resolves once it is gone (rejects on a shared server). */
  killServer(): Promise<void>;
  /** Starts our own dev server again on the same DB file and port. */
  restartServer(): Promise<void>;
  /** What our own dev servers logged (errors only), killed ones included, oldest first. */
  serverErrorLog(): string;
  close(): Promise<void>;
}

/** Stacks not closed yet, so an interrupted run can stop its servers and workers. */
const openStacks = new Set<{ close(): Promise<void> }>();

/** Closes every stack still open (for signal handlers of long runs). */
export async function closeOpenStacks(): Promise<void> {
  await Promise.allSettled([...openStacks].map((s) => s.close()));
}

/**
 * Counts `stack` among the open ones until the returned function is called: a drill on the cluster
 * stops it on Ctrl-C too, or its PostgreSQL, nodes and balancer outlive the run.
 */
export function trackOpenStack(stack: { close(): Promise<void> }): () => void {
  openStacks.add(stack);
  return () => openStacks.delete(stack);
}

/** A fresh `id:base64` key for PAYLOAD_ENCRYPTION_KEYS. */
export function newEncryptionKey(id = `k${randomUUID().slice(0, 8)}`): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** Parses `id:base64,…` keys (throws naming the problem). */
export function parseKeys(spec: string): readonly [EncryptionKey, ...EncryptionKey[]] {
  const problems: string[] = [];
  const keys = parseEncryptionKeys(spec, 'PAYLOAD_ENCRYPTION_KEYS', problems);
  const [first, ...rest] = keys;
  if (problems.length > 0 || first === undefined) throw new Error(problems.join('; '));
  return [first, ...rest];
}

/**
 * The workflow bundle file for worker subprocesses: the test run's when there is one, else built
 * once into `workDir` (the project's bundle, with its failure converter compiled in).
 */
export async function ensureWorkflowBundle(workDir: string): Promise<string> {
  const shared = process.env.WORKFLOW_BUNDLE_PATH;
  if (shared && existsSync(shared)) return shared;
  const path = join(workDir, 'workflow-bundle.js');
  if (existsSync(path)) return path;
  const { code } = await bundleWorkflows();
  mkdirSync(workDir, { recursive: true });
  writeFileSync(path, code);
  return path;
}

/** Starts the stack; `close()` stops everything it started. */
export async function startChaosStack(options: ChaosStackOptions): Promise<ChaosStack> {
  const log = options.log ?? (() => undefined);
  mkdirSync(options.workDir, { recursive: true });
  const company = options.company ?? {
    key: `chaos-key-${randomUUID().slice(0, 8)}`,
    secret: `chaos-secret-${randomBytes(12).toString('hex')}`,
  };
  const encryptionKeys = options.encryptionKeys ?? newEncryptionKey();
  const keys = parseKeys(encryptionKeys);
  const taskQueue = `${options.name}-${randomUUID().slice(0, 8)}`;

  const cleanups: (() => Promise<void>)[] = [];
  let closing: Promise<void> | undefined;
  const closeAll = () =>
    (closing ??= (async () => {
      for (const fn of [...cleanups].reverse()) await fn().catch(() => undefined);
    })());

  try {
    // --- supplier -------------------------------------------------------------------------------
    const sim = buildSimulator({
      companies: [{ ...company, active: true }],
      inspection: true,
      ...options.simulator,
    });
    const inflight = { total: 0, booking: 0 };
    sim.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const booking = req.method === 'POST' && (req.url ?? '').startsWith('/api/v1/booking');
      inflight.total += 1;
      if (booking) inflight.booking += 1;
      res.once('close', () => {
        inflight.total -= 1;
        if (booking) inflight.booking -= 1;
      });
    });
    const { origin: simOrigin } = await sim.listen(0, '127.0.0.1');
    cleanups.push(() => sim.close());

    // --- Temporal -------------------------------------------------------------------------------
    const temporalOption =
      options.temporal ??
      (process.env.TEMPORAL_ADDRESS
        ? { address: process.env.TEMPORAL_ADDRESS, securityEnv: temporalSecurityEnvOf(process.env) }
        : { own: {} });
    let devServer: DevServer | undefined;
    const ownServers: DevServer[] = [];
    let dbFile: string | undefined;
    let temporalAddress: string;
    let securityEnv: Record<string, string> = {};
    if ('address' in temporalOption) {
      temporalAddress = temporalOption.address;
      securityEnv = temporalSecurityEnvOf(temporalOption.securityEnv ?? {});
    } else {
      dbFile = temporalOption.own.inMemory
        ? undefined
        : (temporalOption.own.dbFile ?? join(options.workDir, 'temporal.db'));
      // Restarted on the same port: one outside the ephemeral range, so nothing takes it meanwhile.
      devServer = await startDevServer({
        headless: true,
        ...(dbFile ? { dbFile, port: await restartablePort() } : {}),
        log,
      });
      ownServers.push(devServer);
      temporalAddress = devServer.address;
      const server = () => devServer;
      cleanups.push(async () => server()?.stop());
    }
    const port = Number(temporalAddress.split(':').pop());

    const security = loadTemporalSecurity(securityEnv);
    const connection = await Connection.connect(
      temporalConnectionOptions({ ...security, address: temporalAddress }),
    );
    cleanups.push(() => connection.close());
    const client = new Client({
      connection,
      namespace: 'default',
      dataConverter: createDataConverter({ keys }),
    });
    const rawClient = new Client({ connection, namespace: 'default' });
    const bookings = new BookingClient({ client, taskQueue });

    // --- worker ---------------------------------------------------------------------------------
    const bundlePath = options.bundle ?? (await ensureWorkflowBundle(options.workDir));
    const worker = new WorkerProcess({
      label: options.name,
      ...(options.workerNodeArgs ? { nodeArgs: options.workerNodeArgs } : {}),
      ...(options.workerLogFile ? { logFile: options.workerLogFile } : {}),
      env: {
        TEMPORAL_ADDRESS: temporalAddress,
        ...securityEnv,
        TEMPORAL_NAMESPACE: 'default',
        TEMPORAL_TASK_QUEUE: taskQueue,
        HOTEL_API_BASE_URL: simOrigin,
        HOTEL_API_KEY: company.key,
        HOTEL_API_SECRET: company.secret,
        METRICS_PORT: '0',
        HEALTH_PORT: '0',
        WORKFLOW_BUNDLE_PATH: bundlePath,
        CATALOGUE_DB_PATH: join(options.workDir, 'catalogue.db'),
        PAYLOAD_ENCRYPTION_KEYS: encryptionKeys,
        SHUTDOWN_GRACE_MS: '2000',
        ...options.workerEnv,
      },
    });
    cleanups.push(() => worker.stop(5_000));
    if (options.startWorker ?? true) {
      worker.start();
      await worker.waitReady(90_000);
    }

    const stack: ChaosStack = {
      sim,
      simOrigin,
      company,
      taskQueue,
      worker,
      temporalAddress,
      get devServer() {
        return devServer;
      },
      dbFile,
      connection,
      client,
      bookings,
      rawClient,
      codec: new EncryptionCodec({ keys }),
      encryptionKeys,
      inFlight: () => ({ ...inflight }),
      async killServer() {
        if (!devServer) throw new Error('the stack uses a shared Temporal server: not killing it');
        await devServer.kill();
      },
      async restartServer() {
        if (!dbFile) throw new Error('the stack has no dev server of its own');
        devServer = await startDevServer({ headless: true, dbFile, port, log });
        ownServers.push(devServer);
      },
      serverErrorLog: () =>
        ownServers.map((s) => `[dev server pid ${s.pid}]\n${s.errorLog()}`).join('\n'),
      close: async () => {
        openStacks.delete(stack);
        await closeAll();
      },
    };
    openStacks.add(stack);
    return stack;
  } catch (err) {
    await closeAll();
    throw err;
  }
}

export { temporalSecurityEnvOf };
