/**
 * The local stack, shared by `npm start` and `npm run demo`: a Temporal dev server (started, or
 * one already running), the supplier (the simulator in-process, or a real supplier's URL) and a
 * booking worker in-process. What it started, `stop()` stops, in reverse order; a start that fails
 * half-way stops what it had started before it rethrows.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  type LogEntry,
  type Worker,
} from '@temporalio/worker';
import { Connection } from '@temporalio/client';
import type { LogLevel } from '@temporalio/common';
import { createAccountWorkers } from '../../src/account-workers';
import { createBookingWorker } from '../../src/build-worker';
import { loadWorkflowBundle } from '../../src/workflow-bundle';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { openSqliteCatalogueStore } from '../../src/catalogue/sqlite-store';
import { buildCodecServer } from '../../src/codec/codec-server';
import type { CodecServerConfig } from '../../src/codec/types';
import { createDataConverter } from '../../src/codec/data-converter';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { DEFAULT_MAX_CONCURRENT_CALLS, type Config, type SupplierAccount } from '../../src/config';
import { HotelApiClient } from '../../src/hotel-api';
import { assertPortFree, whenPortInUse } from '../../src/observability/ports';
import { buildSimulator, DEMO_COMPANY, type Simulator } from '../simulator';
import {
  ensureSearchAttributes,
  freePort,
  startDevServer,
  waitForTemporal,
  type DevServer,
} from '../temporal-server/dev-server';

/** Start a dev server, or use the one at `address`. */
export type TemporalChoice =
  | {
      readonly kind: 'start';
      /** @default a free port */
      readonly port?: number;
      /** @default a free port (`port + 1000` when `port` is given) */
      readonly uiPort?: number;
      /** `127.0.0.1` unless given; `localhost` and `0.0.0.0` work too. */
      readonly ip?: string;
      /** SQLite file: workflows survive restarts. */
      readonly dbFile: string;
      /** @default false */
      readonly headless?: boolean;
    }
  | { readonly kind: 'existing'; readonly address: string; readonly uiUrl?: string };

/** Start the simulator in-process, or use a supplier that is already there. */
export type SupplierChoice =
  | {
      readonly kind: 'simulator';
      /** @default 0 (a free port) */
      readonly port?: number;
      /** @default '127.0.0.1' */
      readonly host?: string;
      /**
       * A company the simulator accepts besides the demo one (`demo-key`), so a worker configured
       * with other credentials against a local URL still gets in.
       */
      readonly company?: { readonly key: string; readonly secret: string };
      /**
       * Supplier accounts besides the default one, each a company of this simulator (`<id>-key`)
       * with a worker of its own, as `SUPPLIER_ACCOUNTS` would name them. @default none
       */
      readonly accounts?: readonly string[];
    }
  | { readonly kind: 'external'; readonly baseUrl: string };

export interface LocalStackOptions {
  readonly temporal: TemporalChoice;
  readonly supplier: SupplierChoice;
  /**
   * The configuration (src/config/): task queue, namespace, supplier credentials and timeouts,
   * payload encryption, order id field. The Temporal address and the supplier URL come from the
   * choices above; {@link LocalStack.config} is this with them filled in.
   */
  readonly config: Config;
  /**
   * Serve the codec server and give its capability URL to the UI (`--ui-codec-endpoint`), so the
   * UI shows decrypted payloads. Only when this stack starts the Temporal server with its UI.
   */
  readonly codecServer?: CodecServerConfig;
  /** How long running activities may finish when the stack stops. @default 3_000 */
  readonly shutdownGraceMs?: number;
  /** Progress lines for people. */
  readonly log: (line: string) => void;
  /**
   * Where the Temporal SDK's own logs (worker, activities) go: `stderr`, or a file so that they
   * do not tear a live display apart. Applies only when the process has not set up its runtime.
   * @default { to: 'stderr', level: 'INFO' }
   */
  readonly sdkLog?: { readonly to: 'stderr' | { readonly file: string }; readonly level: LogLevel };
}

export interface LocalStack {
  /** gRPC `host:port`. */
  readonly temporalAddress: string;
  /** The Temporal web UI, when known. */
  readonly uiUrl: string | undefined;
  /** Whether this stack started the Temporal server (and will stop it). */
  readonly startedTemporal: boolean;
  /** The in-process simulator, when the stack runs one (with inspection on). */
  readonly simulator: Simulator | undefined;
  /** The codec server the UI decodes through, when this stack runs one. */
  readonly codecUrl: string | undefined;
  /** The supplier's base URL, as `HOTEL_API_BASE_URL` would say it. */
  readonly supplierUrl: string;
  readonly taskQueue: string;
  readonly namespace: string;
  /** The configuration a client of this stack needs (its Temporal address and supplier URL). */
  readonly config: Config;
  readonly worker: Worker;
  /** Settles when the worker stops: after `stop()`, or earlier when it fails. */
  readonly workerStopped: Promise<void>;
  /** Stops the worker, the simulator and the server (when started here). Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Installs the Temporal runtime with a logger of our choosing. The runtime is per process and
 * can be installed once, before the first worker or native connection: later calls do nothing.
 */
function installSdkLogger(sdkLog: NonNullable<LocalStackOptions['sdkLog']>): void {
  const target = sdkLog.to;
  let logger: DefaultLogger;
  if (target === 'stderr') {
    logger = new DefaultLogger(sdkLog.level);
  } else {
    mkdirSync(dirname(target.file), { recursive: true });
    logger = new DefaultLogger(sdkLog.level, (entry: LogEntry) => {
      const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
      const meta = entry.meta ? ` ${safeJson(entry.meta)}` : '';
      appendFileSync(target.file, `${time} ${entry.level} ${entry.message}${meta}\n`);
    });
  }
  try {
    Runtime.install({ logger });
  } catch {
    // Already installed by this process (or implicitly, by an earlier worker): keep that one.
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  } catch {
    return '[unserializable]';
  }
}

/**
 * The first supplier booking id of a simulator started now. The simulator forgets its bookings
 * when it stops but the Temporal DB remembers the workflows that made them: ids that restarted at
 * 100001 every time would make `SupplierBookingId = 100003` find unrelated bookings of earlier
 * runs. Ten ids per second since 2025 keeps runs apart unless one books faster than that.
 */
export function freshBookingIdBase(now = Date.now()): number {
  const secondsSince2025 = Math.floor((now - Date.UTC(2025, 0, 1)) / 1000);
  return 100_001 + Math.max(0, secondsSince2025) * 10;
}

/** Starts the stack; resolves once the worker polls. */
export async function startLocalStack(o: LocalStackOptions): Promise<LocalStack> {
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        o.log(`while stopping: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const { namespace, taskQueue } = o.config.temporal;
  try {
    installSdkLogger(o.sdkLog ?? { to: 'stderr', level: 'INFO' });

    // --- Temporal ---
    let server: DevServer | undefined;
    let temporalAddress: string;
    let uiUrl: string | undefined;
    let codecUrl: string | undefined;
    if (o.temporal.kind === 'start') {
      const t = o.temporal;
      const started = Date.now();
      const port = t.port ?? (await freePort());
      const uiPort = t.headless ? undefined : (t.uiPort ?? port + 1000);
      if (uiPort !== undefined) {
        const what = 'the Temporal UI, at the gRPC port + 1000';
        await assertPortFree(uiPort, t.ip ?? '127.0.0.1', 'TEMPORAL_ADDRESS', what);
      }
      let uiCodecEndpoint: string | undefined;
      if (o.codecServer && uiPort !== undefined) {
        const codec = buildCodecServer({
          codec: new EncryptionCodec(o.config.encryption),
          token: o.codecServer.token,
          corsOrigin: [
            ...o.codecServer.corsOrigins,
            `http://127.0.0.1:${uiPort}`,
            `http://localhost:${uiPort}`,
          ],
        });
        const codecPort = o.codecServer.port;
        codecUrl = await codec
          .listen(codecPort, '127.0.0.1')
          .catch(whenPortInUse('CODEC_SERVER_PORT', codecPort, 'codec server', '127.0.0.1'));
        cleanups.push(() => codec.close());
        // The UI cannot send a static bearer token; the token rides in the path instead.
        uiCodecEndpoint = `${codecUrl.replace(/\/$/, '')}/t/${encodeURIComponent(o.codecServer.token)}`;
      }
      server = await startDevServer({
        port,
        ...(uiPort !== undefined ? { uiPort } : { headless: true }),
        ip: t.ip ?? '127.0.0.1',
        dbFile: t.dbFile,
        ...(uiCodecEndpoint ? { uiCodecEndpoint } : {}),
        log: o.log,
      });
      const s = server;
      cleanups.push(() => s.stop());
      temporalAddress = server.address;
      uiUrl = server.uiUrl;
      o.log(`Temporal dev server ready on ${temporalAddress} in ${Date.now() - started} ms`);
    } else {
      temporalAddress = o.temporal.address;
      uiUrl = o.temporal.uiUrl;
      await waitForTemporal(temporalAddress, 10_000, namespace, o.config.temporal);
      // A server started some other way (plain `temporal server start-dev`) may lack them, and
      // every booking upserts them.
      const connection = await Connection.connect(
        temporalConnectionOptions({ ...o.config.temporal, address: temporalAddress }),
      );
      try {
        await ensureSearchAttributes(connection, namespace);
      } finally {
        await connection.close();
      }
    }

    // --- supplier ---
    let simulator: Simulator | undefined;
    let supplierUrl: string;
    if (o.supplier.kind === 'simulator') {
      const extra = o.supplier.company;
      const sim = buildSimulator({
        companies: [
          DEMO_COMPANY,
          ...(extra && extra.key !== DEMO_COMPANY.key ? [{ ...extra, active: true }] : []),
          ...(o.supplier.accounts ?? []).map((id) => ({ ...accountCompany(id), active: true })),
        ],
        inspection: true,
        firstBookingId: freshBookingIdBase(),
      });
      const [simPort, simHost] = [o.supplier.port ?? 0, o.supplier.host ?? '127.0.0.1'];
      const { origin } = await sim
        .listen(simPort, simHost)
        .catch(whenPortInUse('HOTEL_API_BASE_URL', simPort, 'the simulator', simHost));
      cleanups.push(() => sim.close());
      simulator = sim;
      supplierUrl = origin;
    } else {
      supplierUrl = o.supplier.baseUrl;
    }

    // --- worker ---
    let config: Config = {
      ...o.config,
      // A dev server started here is plaintext; an existing server keeps the configured TLS.
      temporal:
        o.temporal.kind === 'start'
          ? { ...o.config.temporal, address: temporalAddress, tls: undefined, apiKey: undefined }
          : { ...o.config.temporal, address: temporalAddress },
      hotelApi: { ...o.config.hotelApi, baseUrl: supplierUrl },
    };
    const accounts: SupplierAccount[] = [
      { ...o.config.suppliers[0]!, hotelApi: config.hotelApi },
      ...o.config.suppliers.slice(1),
      ...(o.supplier.kind === 'simulator' ? (o.supplier.accounts ?? []) : []).map((id) =>
        simulatorAccount(id, config.hotelApi),
      ),
    ];
    config = { ...config, suppliers: accounts };
    const hotelApi = new HotelApiClient(config.hotelApi);
    cleanups.push(() => hotelApi.close());
    const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
    cleanups.push(() => connection.close());
    // The content catalogue this worker syncs into (`content sync`, `content search`).
    const catalogueStore = openSqliteCatalogueStore({ path: resolve(config.catalogueDbPath) });
    cleanups.push(() => catalogueStore.close());
    const worker = await createBookingWorker({
      workflowBundle: await loadWorkflowBundle(config.worker.workflowBundlePath),
      catalogueStore,
      connection,
      namespace,
      taskQueue,
      hotelApi,
      orderIdField: config.orderIdField,
      // The client side (connectBookingClient) encrypts with the same keys.
      dataConverter: createDataConverter(config.encryption),
      // Local use: Ctrl-C should not wait 30 s for a supplier call to finish.
      shutdownGraceTime: o.shutdownGraceMs ?? 3_000,
      ...(accounts.length > 1 ? { accounts, localCallsPerSecond: 0 } : {}),
    });
    const accountWorkers = await createAccountWorkers({
      connection,
      namespace,
      taskQueue,
      accounts,
      dataConverter: createDataConverter(config.encryption),
      orderIdField: config.orderIdField,
      catalogueDbPath: resolve(config.catalogueDbPath),
      shutdownGraceTime: o.shutdownGraceMs ?? 3_000,
    });
    cleanups.push(() => accountWorkers.close());
    for (const w of accountWorkers.workers) {
      const stopped = w.run();
      stopped.catch(() => undefined);
      cleanups.push(async () => {
        if (w.getState() === 'RUNNING') w.shutdown();
        await stopped.catch(() => undefined);
      });
    }
    const workerStopped = worker.run();
    // Callers race it against their own work; a worker failing while nobody listens must not
    // crash the process as an unhandled rejection.
    workerStopped.catch(() => undefined);
    cleanups.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await workerStopped.catch(() => undefined);
    });

    let stopping: Promise<void> | undefined;
    return {
      temporalAddress,
      uiUrl,
      startedTemporal: server !== undefined,
      simulator,
      codecUrl,
      supplierUrl,
      taskQueue,
      namespace,
      config,
      worker,
      workerStopped,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** The simulator's company of a stack's account (`supplier.accounts`): development credentials. */
export function accountCompany(id: string): { readonly key: string; readonly secret: string } {
  return { key: `${id}-key`, secret: `${id}-secret-change-me` };
}

/** A stack's account on its simulator, with the default account's timeouts and pool. */
function simulatorAccount(id: string, api: Config['hotelApi']): SupplierAccount {
  return {
    id,
    enabled: true,
    hotelApi: { ...api, ...accountCompany(id) },
    maxCallsPerSecond: 0,
    maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS,
  };
}

/** The Temporal web UI page of a workflow. */
export function workflowUrl(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
