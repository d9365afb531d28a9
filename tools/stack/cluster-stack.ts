/**
 * The whole production topology on one machine: the cluster's infrastructure
 * (tools/temporal-server/cluster.ts: PostgreSQL, Temporal server with mTLS, UI server) plus the
 * application side — the codec server the UI decodes through, the simulator, and N workers as
 * separate processes configured by environment only, exactly as a fleet runs. `npm run cluster`
 * and the fleet drill both start it with this.
 */
import { appendFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { WorkerProcess } from '../chaos/worker-process';
import type { BookingClient } from '../../src/client';
import { connectBookingClient } from '../../src/client/connect';
import { buildCodecServer } from '../../src/codec/codec-server';
import type { CodecServerConfig } from '../../src/codec/types';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import type { Config } from '../../src/config';
import { buildSimulator, DEMO_COMPANY, type Simulator, type SimulatorOptions } from '../simulator';
import {
  loadAlertingSettings,
  localAlertingDefaults,
  type AlertingSettings,
} from '../alerting/alerting-config';
import { buildAlertReceiver } from '../alerting/alert-receiver';
import { startAlertingStack } from '../alerting/alerting-stack';
import {
  startClusterInfrastructure,
  type ClusterOptions,
  type ClusterProcesses,
} from '../temporal-server/cluster';
import {
  clusterPorts,
  clusterScrapeJobs,
  workerHealthPort,
  workerMetricsPort,
} from '../temporal-server/cluster-ports';
import { bundleWorkflows } from '../../src/workflow-bundle';
import { whenPortInUse } from '../../src/observability/ports';
import { freshBookingIdBase } from './local-stack';

export interface ClusterStackOptions extends ClusterOptions {
  /** @default 2 (0: the caller starts its own) */
  readonly workers?: number;
  /** Task queue, namespace, encryption keys, supplier credentials: the product's configuration. */
  readonly config: Config;
  readonly codecServer: CodecServerConfig;
  /** Simulator behaviour (latency, faults) on top of the cluster's defaults. */
  readonly simulator?: Omit<SimulatorOptions, 'companies' | 'inspection'>;
  /**
   * An external supplier (its origin, e.g. `http://127.0.0.1:9000`) instead of the simulator: the
   * workers call it with the configuration's HOTEL_API_KEY and HOTEL_API_SECRET.
   */
  readonly supplierUrl?: string;
  /** Extra worker environment (e.g. SHUTDOWN_GRACE_MS). */
  readonly workerEnv?: Readonly<Record<string, string>>;
  /**
   * Where Alertmanager sends and where runbook links point (`clusterAlertingSettings`).
   * @default the local alert receiver and this checkout's docs/runbooks.md
   */
  readonly alerting?: AlertingSettings;
}

/**
 * The cluster's alerting settings from `env` (ALERTMANAGER_CRITICAL_WEBHOOK_URL,
 * ALERTMANAGER_WARNING_WEBHOOK_URL, RUNBOOK_BASE_URL), defaulting to the local receiver on its
 * port; throws AlertingConfigError (one line) when a variable is bad.
 */
export function clusterAlertingSettings(
  env: Readonly<Record<string, string | undefined>>,
  basePort: number,
): AlertingSettings {
  return loadAlertingSettings(
    env,
    localAlertingDefaults(`http://127.0.0.1:${clusterPorts(basePort).alertReceiver}`),
  );
}

export interface ClusterStack {
  readonly infra: ClusterProcesses;
  /** The in-process simulator, unless an external supplier was given. */
  readonly simulator: Simulator | undefined;
  readonly supplierUrl: string;
  readonly codecUrl: string;
  /** Prometheus with the alert rules, or why it is not running. */
  readonly prometheus: { readonly url: string } | { readonly skipped: string };
  /** Alertmanager (Prometheus sends it the alerts), or why it is not running. */
  readonly alertmanager: { readonly url: string } | { readonly skipped: string };
  /** Where alerts go and where their runbook links point. */
  readonly alerting: AlertingSettings;
  /** The local alert receiver's log file, when it runs (no webhook URL set elsewhere). */
  readonly alertLog: string | undefined;
  readonly workers: WorkerProcess[];
  /** Environment of the i-th worker (to start more, or restart one). */
  workerEnv(i: number): Record<string, string>;
  /** A new worker process (not started). */
  addWorker(): WorkerProcess;
  readonly connection: Connection;
  readonly client: Client;
  readonly bookings: BookingClient;
  stop(): Promise<void>;
}

/** The bundle every worker loads (built once per start; workers start faster and alike). */
async function writeBundle(dataDir: string): Promise<string> {
  const path = join(dataDir, 'workflow-bundle.js');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, (await bundleWorkflows()).code);
  return path;
}

export async function startClusterStack(options: ClusterStackOptions): Promise<ClusterStack> {
  const log = options.log ?? ((l: string) => console.error(l));
  const infra = await startClusterInfrastructure(options);
  const cleanups: (() => Promise<void>)[] = [() => infra.stop()];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    const { config } = options;
    const ports = infra.ports;
    // --- codec server, then the UI that decodes through it ---
    const codec = buildCodecServer({
      codec: new EncryptionCodec(config.encryption),
      token: options.codecServer.token,
      corsOrigin: [infra.uiUrl, `http://127.0.0.1:${ports.ui}`],
    });
    const codecUrl = await codec.listen(ports.codec, '127.0.0.1');
    cleanups.push(() => codec.close());
    infra.startUi(
      `${codecUrl.replace(/\/$/, '')}/t/${encodeURIComponent(options.codecServer.token)}`,
    );

    // --- the supplier: the simulator, or the external one given ---
    const company = { key: config.hotelApi.key, secret: config.hotelApi.secret };
    let simulator: Simulator | undefined;
    let supplierUrl: string;
    if (options.supplierUrl) {
      supplierUrl = options.supplierUrl.replace(/\/+$/, '');
    } else {
      const sim = buildSimulator({
        companies:
          company.key && company.key !== DEMO_COMPANY.key
            ? [DEMO_COMPANY, { ...company, active: true }]
            : [DEMO_COMPANY],
        inspection: true,
        firstBookingId: freshBookingIdBase(),
        ...options.simulator,
      });
      simulator = sim;
      supplierUrl = (await sim.listen(ports.simulator, '127.0.0.1')).origin;
      cleanups.push(() => sim.close());
    }

    // --- workers ---
    const bundle = await writeBundle(infra.dataDir);
    const keys = config.encryption.keys
      .map((k) => `${k.id}:${k.key.export().toString('base64')}`)
      .join(',');
    const workerEnv = (i: number): Record<string, string> => ({
      ...infra.clientEnv,
      TEMPORAL_NAMESPACE: config.temporal.namespace,
      TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
      HOTEL_API_BASE_URL: supplierUrl,
      HOTEL_API_KEY: company.key || DEMO_COMPANY.key,
      HOTEL_API_SECRET: company.secret || DEMO_COMPANY.secret,
      PAYLOAD_ENCRYPTION_KEYS: keys,
      // The SDK's exporter takes a free loopback port; METRICS_PORT serves both.
      METRICS_PORT: String(workerMetricsPort(ports.frontend, i)),
      HEALTH_PORT: String(workerHealthPort(ports.frontend, i)),
      WORKFLOW_BUNDLE_PATH: bundle,
      CATALOGUE_DB_PATH: join(infra.dataDir, `catalogue-${i}.db`),
      // At least info: the "worker polling" line is how a start is known to be ready.
      LOG_LEVEL: ['debug', 'trace'].includes(config.logLevel) ? config.logLevel : 'info',
      ...options.workerEnv,
    });
    const workers: WorkerProcess[] = [];
    const addWorker = () => {
      const i = workers.length;
      const w = new WorkerProcess({
        label: `worker-${i + 1}`,
        env: workerEnv(i),
        logFile: join(infra.dataDir, 'logs', `worker-${i + 1}.log`),
      });
      workers.push(w);
      return w;
    };
    cleanups.push(async () => {
      await Promise.all(workers.map((w) => w.stop(15_000)));
    });
    const n = options.workers ?? 2;
    for (let i = 0; i < n; i++) addWorker().start();
    await Promise.all(workers.map((w) => w.waitReady(120_000)));
    log(`${n} worker(s) polling task queue '${config.temporal.taskQueue}'`);

    // --- the on-call path: Prometheus with the alert rules, Alertmanager, the local receiver ---
    const alerting = options.alerting ?? clusterAlertingSettings({}, ports.frontend);
    const receiverOrigin = `http://127.0.0.1:${ports.alertReceiver}`;
    let alertLog: string | undefined;
    if (
      [alerting.criticalWebhookUrl, alerting.warningWebhookUrl].some((u) =>
        u.startsWith(`${receiverOrigin}/`),
      )
    ) {
      const file = join(infra.dataDir, 'logs', 'alerts.log');
      mkdirSync(join(infra.dataDir, 'logs'), { recursive: true });
      const receiver = buildAlertReceiver({
        onLine: (line) => {
          log(line);
          appendFileSync(file, `${new Date().toISOString()} ${line}\n`);
        },
      });
      await receiver
        .listen(ports.alertReceiver, '127.0.0.1')
        .catch(whenPortInUse('--base-port', ports.alertReceiver, 'the local alert receiver'));
      cleanups.push(() => receiver.close());
      alertLog = file;
    }
    const onCall = await startAlertingStack({
      dir: infra.dataDir,
      jobs: clusterScrapeJobs(ports, n),
      settings: alerting,
      ports: {
        prometheus: ports.prometheus,
        alertmanager: ports.alertmanager,
        setting: '--base-port',
      },
      log,
    });
    cleanups.push(() => onCall.close());
    const prometheus: ClusterStack['prometheus'] =
      'url' in onCall.prometheus ? { url: onCall.prometheus.url } : onCall.prometheus;
    const alertmanager: ClusterStack['alertmanager'] =
      'url' in onCall.alertmanager ? { url: onCall.alertmanager.url } : onCall.alertmanager;
    if ('skipped' in prometheus) log(`Prometheus skipped: ${prometheus.skipped}`);
    if ('skipped' in alertmanager) log(`Alertmanager skipped: ${alertmanager.skipped}`);

    // --- a client, for the callers that drive bookings ---
    const { connection, client, bookings, close } = await connectBookingClient({
      ...config,
      temporal: { ...config.temporal, ...infra.security, address: infra.address },
    });
    cleanups.push(close);
    let stopping: Promise<void> | undefined;
    return {
      infra,
      simulator,
      supplierUrl,
      codecUrl,
      prometheus,
      alertmanager,
      alerting,
      alertLog,
      workers,
      workerEnv,
      addWorker,
      connection,
      client,
      bookings,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Whether the cluster binaries are built (tests that need them skip otherwise). */
export { findClusterBinaries } from '../temporal-server/cluster-binaries';
export const clusterDataExists = (dataDir: string) => existsSync(join(dataDir, 'postgres'));

/** The stack's simulator, for drills that audit the supplier's side (they start it). */
export function simulatorOf(stack: Pick<ClusterStack, 'simulator'>): Simulator {
  if (!stack.simulator) throw new Error('this drill needs the simulator, not an external supplier');
  return stack.simulator;
}
