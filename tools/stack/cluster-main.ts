/**
 * `npm run cluster [-- --workers N] [--base-port P]`: the production topology on one machine
 * (tools/stack/cluster-stack.ts), in the foreground until Ctrl-C. Prints what is where and the
 * environment that reaches it, then "Cluster ready". A second start reuses `.data/cluster/` (the
 * database, the certificates): every workflow is kept.
 */
import { parseArgs } from 'node:util';
import { loadCodecServerConfig } from '../../src/config/codec';
import { ConfigError, loadConfig, parseEnv } from '../../src/config';
import {
  ClusterError,
  DEFAULT_CLUSTER_BASE_PORT,
  MAX_CLUSTER_BASE_PORT,
} from '../temporal-server/cluster';
import { ClusterBuildError } from '../temporal-server/cluster-binaries';
import { AlertingConfigError, webhookOrigin } from '../alerting/alerting-config';
import { clusterAlertingSettings, startClusterStack } from './cluster-stack';
import { runUntilStopped } from './run-until-stopped';

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function usage(problem: string): number {
  log(`npm run cluster: ${problem}`);
  log(
    'usage: npm run cluster -- [--workers N (1-16, default 2)] [--base-port P (1024-32700, default 17233)]',
  );
  return 2;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  let values: { workers?: string; 'base-port'?: string };
  try {
    ({ values } = parseArgs({
      options: { workers: { type: 'string' }, 'base-port': { type: 'string' } },
    }));
  } catch (err) {
    return usage((err as Error).message);
  }
  const workers = Number(values.workers ?? 2);
  if (!Number.isInteger(workers) || workers < 1 || workers > 16) {
    return usage(`--workers: a whole number from 1 to 16 (got "${values.workers}")`);
  }
  const basePort = Number(values['base-port'] ?? DEFAULT_CLUSTER_BASE_PORT);
  if (!Number.isInteger(basePort) || basePort < 1024 || basePort > MAX_CLUSTER_BASE_PORT) {
    return usage(
      `--base-port: a port from 1024 to ${MAX_CLUSTER_BASE_PORT} (got "${values['base-port']}"); the server keeps membership ports in a PostgreSQL smallint`,
    );
  }
  // The product's configuration, without the Temporal address/TLS: the cluster provides those.
  const env = { ...process.env };
  for (const k of Object.keys(env))
    if (k.startsWith('TEMPORAL_TLS') || k === 'TEMPORAL_API_KEY') delete env[k];
  const config = loadConfig(env);
  // Checked before anything starts: a bad webhook or runbook URL is one line, exit 2.
  const alerting = clusterAlertingSettings(env, basePort);
  const stack = await startClusterStack({
    workers,
    basePort,
    config,
    codecServer: loadCodecServerConfig(parseEnv(env)),
    alerting,
    log,
  });
  const { infra } = stack;
  const exports = Object.entries(infra.clientEnv).map(([k, v]) => `  export ${k}=${v}`);
  const lines = [
    `Cluster up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    `  Temporal gRPC:  ${infra.address} (server 1.29.1, mTLS, PostgreSQL 127.0.0.1:${infra.ports.postgres}, data ${infra.dataDir})`,
    `  Temporal UI:    ${infra.uiUrl}`,
    `  Codec server:   ${stack.codecUrl} (the UI decrypts payloads through it)`,
    `  Supplier:       ${stack.supplierUrl}/api/v1 (simulator, in-process; inspection at /__sim/bookings)`,
    `  Workers:        ${workers} processes on task queue '${config.temporal.taskQueue}' (logs ${infra.dataDir}/logs/)`,
    `  Server metrics: http://127.0.0.1:${infra.ports.serverMetrics}/metrics`,
    'url' in stack.prometheus
      ? `  Prometheus:     ${stack.prometheus.url}/alerts (deploy/prometheus/alerts.yml)`
      : `  Prometheus:     not started (${stack.prometheus.skipped})`,
    'url' in stack.alertmanager
      ? `  Alertmanager:   ${stack.alertmanager.url} (critical → ${webhookOrigin(alerting.criticalWebhookUrl)}, warning → ${webhookOrigin(alerting.warningWebhookUrl)}${stack.alertLog ? `; the local receiver logs to ${stack.alertLog}` : ''})`
      : `  Alertmanager:   not started (${stack.alertmanager.skipped})`,
    `  Runbook links:  ${alerting.runbookBaseUrl}#<alert> (RUNBOOK_BASE_URL)`,
    '',
    'To use it from another shell (or `. .data/cluster/env.sh`):',
    ...exports,
    `  export HOTEL_API_BASE_URL=${stack.supplierUrl}`,
    '  npm run starter -- list',
    '',
    'Cluster ready. Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  return runUntilStopped(stack, { what: 'the cluster (the database is kept)', log });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof AlertingConfigError) {
      log(err.message);
      process.exit(2);
    }
    if (err instanceof ClusterError || err instanceof ClusterBuildError) {
      log(`npm run cluster: ${err.message}`);
      process.exit(err instanceof ClusterBuildError ? 1 : 3);
    }
    log(`npm run cluster failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
