/**
 * `npm run cluster [-- --workers N] [--nodes N] [--base-port P] [--supplier-url URL] [--data-dir D]`:
 * the production topology on one machine (tools/stack/cluster-stack.ts), in the foreground until
 * Ctrl-C. Prints what is where (each server node's pid and ports among it) and the environment that
 * reaches it, then "Cluster ready". A second start reuses the data directory (`.data/cluster/`: the
 * database, the certificates): every workflow is kept.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCodecServerConfig } from '../../src/config/codec';
import { ConfigError, loadConfig, parseEnv } from '../../src/config';
import { ClusterError, DEFAULT_CLUSTER_BASE_PORT } from '../temporal-server/cluster';
import { MAX_CLUSTER_NODES, maxBasePort } from '../temporal-server/cluster-ports';
import { ClusterBuildError } from '../temporal-server/cluster-binaries';
import { AlertingConfigError, webhookOrigin } from '../alerting/alerting-config';
import { clusterAlertingSettings, startClusterStack } from './cluster-stack';
import { runUntilStopped } from './run-until-stopped';

/** A path relative to here when it is under here, else absolute. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function usage(problem: string): number {
  log(`npm run cluster: ${problem}`);
  log(
    'usage: npm run cluster -- [--workers N (1-16, default 2)] [--nodes N (Temporal server nodes, 1-5, default 1)] [--base-port P (default 17233)] [--supplier-url URL (an external supplier instead of the simulator)] [--data-dir DIR (default .data/cluster)]',
  );
  return 2;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  let values: {
    workers?: string;
    nodes?: string;
    'base-port'?: string;
    'supplier-url'?: string;
    'data-dir'?: string;
  };
  try {
    ({ values } = parseArgs({
      options: {
        workers: { type: 'string' },
        nodes: { type: 'string' },
        'base-port': { type: 'string' },
        'supplier-url': { type: 'string' },
        'data-dir': { type: 'string' },
      },
    }));
  } catch (err) {
    return usage((err as Error).message);
  }
  const workers = Number(values.workers ?? 2);
  if (!Number.isInteger(workers) || workers < 1 || workers > 16) {
    return usage(`--workers: a whole number from 1 to 16 (got "${values.workers}")`);
  }
  const nodes = Number(values.nodes ?? 1);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_CLUSTER_NODES) {
    return usage(`--nodes: a whole number from 1 to ${MAX_CLUSTER_NODES} (got "${values.nodes}")`);
  }
  const basePort = Number(values['base-port'] ?? DEFAULT_CLUSTER_BASE_PORT);
  const maxBase = maxBasePort(nodes);
  if (!Number.isInteger(basePort) || basePort < 1024 || basePort > maxBase) {
    return usage(
      `--base-port: a port from 1024 to ${maxBase} with ${nodes} node(s) (got "${values['base-port']}"); the server keeps membership ports in a PostgreSQL smallint`,
    );
  }
  const supplierUrl = values['supplier-url'];
  if (supplierUrl !== undefined && !/^https?:\/\/[^/]+/.test(supplierUrl)) {
    return usage(
      `--supplier-url: the supplier's origin, e.g. http://127.0.0.1:9000 (got "${supplierUrl}")`,
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
    nodes,
    basePort,
    ...(supplierUrl ? { supplierUrl } : {}),
    ...(values['data-dir'] ? { dataDir: resolve(values['data-dir']) } : {}),
    config,
    codecServer: loadCodecServerConfig(parseEnv(env)),
    alerting,
    log,
  });
  const { infra } = stack;
  const exports = Object.entries(infra.clientEnv).map(([k, v]) => `  export ${k}=${v}`);
  const lines = [
    `Cluster up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    `  Temporal gRPC:  ${infra.address} (server ${infra.serverVersion}, ${infra.shards} history shards, mTLS, PostgreSQL 127.0.0.1:${infra.ports.postgres} pid ${infra.pids().postgres}, data ${infra.dataDir})`,
    ...(infra.nodes.length > 1
      ? [
          `  Balancer:       ${infra.address} → the nodes' frontends (nginx stream, pid ${infra.pids().balancer}; mTLS end to end)`,
        ]
      : []),
    ...infra.nodes.map(
      (n) =>
        `  Server node ${n.number}:  pid ${n.pid}, frontend ${n.ports.frontend}, history ${n.ports.history}, matching ${n.ports.matching}, worker ${n.ports.worker}, membership ${n.ports.frontendMembership}/${n.ports.historyMembership}/${n.ports.matchingMembership}/${n.ports.workerMembership}, metrics http://127.0.0.1:${n.ports.metrics}/metrics (log ${n.logFile})`,
    ),
    `  Temporal UI:    ${infra.uiUrl}`,
    `  Codec server:   ${stack.codecUrl} (the UI decrypts payloads through it)`,
    stack.simulator
      ? `  Supplier:       ${stack.supplierUrl}/api/v1 (simulator, in-process; inspection at /__sim/bookings)`
      : `  Supplier:       ${stack.supplierUrl}/api/v1 (external, --supplier-url)`,
    `  Workers:        ${workers} process${workers === 1 ? '' : 'es'} on task queue '${config.temporal.taskQueue}' (logs ${infra.dataDir}/logs/)`,
    'url' in stack.prometheus
      ? `  Prometheus:     ${stack.prometheus.url}/alerts (deploy/prometheus/alerts.yml)`
      : `  Prometheus:     not started (${stack.prometheus.skipped})`,
    'url' in stack.alertmanager
      ? `  Alertmanager:   ${stack.alertmanager.url} (critical → ${webhookOrigin(alerting.criticalWebhookUrl)}, warning → ${webhookOrigin(alerting.warningWebhookUrl)}${stack.alertLog ? `; the local receiver logs to ${stack.alertLog}` : ''})`
      : `  Alertmanager:   not started (${stack.alertmanager.skipped})`,
    `  Runbook links:  ${alerting.runbookBaseUrl}#<alert> (RUNBOOK_BASE_URL)`,
    '',
    `To use it from another shell (or \`. ${shownPath(join(infra.dataDir, 'env.sh'))}\`):`,
    ...exports,
    `  export HOTEL_API_BASE_URL=${stack.supplierUrl}`,
    '  npm run starter -- list',
    '',
    'Cluster ready. Press Ctrl-C to stop.',
  ];
  // env.sh (written with the Temporal settings) gains the supplier and the codec server, so one
  // `. env.sh` is enough for a worker, the CLI and the doctors.
  appendFileSync(
    join(infra.dataDir, 'env.sh'),
    `export HOTEL_API_BASE_URL=${stack.supplierUrl}\nexport CODEC_SERVER_URL=${stack.codecUrl}\n`,
  );
  // The same facts for a program (a check written apart from this repository kills a node by pid).
  writeFileSync(
    join(infra.dataDir, 'cluster.json'),
    `${JSON.stringify(
      {
        address: infra.address,
        clientEnv: infra.clientEnv,
        shards: infra.shards,
        nodes: infra.nodes.map((n) => ({ number: n.number, pid: n.pid, ports: n.ports })),
        pids: infra.pids(),
        supplierUrl: stack.supplierUrl,
        uiUrl: infra.uiUrl,
      },
      null,
      2,
    )}\n`,
  );
  lines.splice(lines.length - 2, 0, `The same as JSON: ${join(infra.dataDir, 'cluster.json')}`, '');
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
