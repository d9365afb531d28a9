/**
 * The deploy drill (`npm run chaos -- deploy`, CHAOS_DEPLOY_FROM=<git revision>): new workflow
 * code while bookings wait. Workers of an old release (the whole product at `from`, extracted
 * with `git archive`) start bookings that wait for the supplier's confirmation; those workers are
 * stopped (SIGTERM) and workers of the new release (`to`, default this checkout) take over the
 * same task queue on the cluster. Every booking must end CONFIRMED, with no workflow task failed
 * on replay (a non-determinism error would fail the task again and again), and no duplicate.
 *
 * The mechanism it proves is the project's rule for workflow changes: `patched()` (docs/operations.md,
 * "Changing workflow code"), checked offline by test/workflows/replay.test.ts and live here.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { loadCodecServerConfig } from '../../src/config/codec';
import { loadConfig, parseEnv } from '../../src/config';
import { bookingWorkflowId } from '../../src/shared/booking-contract';
import { BookingPhaseKey } from '../../src/shared/search-attributes';
import { simulatorOf, startClusterStack } from '../stack/cluster-stack';
import { audit, formatCounts, startWithRetry, waitForSettled, type AuditReport } from './audit';
import { mixInput, orderIdFor } from './booking-mix';
import { REPO_ROOT, WorkerProcess } from './worker-process';

export interface DeployDrillOptions {
  /** The old release: a git revision of this repository. */
  readonly from: string;
  /** The new release: a git revision, or undefined for this checkout (with its changes). */
  readonly to?: string;
  /** @default 20 */
  readonly bookings?: number;
  /** @default 2 */
  readonly workers?: number;
  /** Confirmation polls before the supplier confirms (the wait spans the deploy). @default 40 */
  readonly polls?: number;
  /** The cluster runs without TLS when the old release predates TLS support. @default false */
  readonly tls?: boolean;
  readonly dataDir: string;
  readonly workDir: string;
  /** @default 900000 */
  readonly settleTimeoutMs?: number;
  /** @default 27633 */
  readonly basePort?: number;
  readonly log?: (line: string) => void;
}

export interface DeployDrillReport {
  readonly from: string;
  readonly to: string;
  readonly bookings: number;
  /** Bookings waiting for confirmation when the old workers were stopped. */
  readonly waitingAtDeploy: number;
  readonly audit: AuditReport;
  /** WorkflowTaskFailed events over all histories (a non-determinism error shows here). */
  readonly workflowTaskFailures: number;
  readonly durationMs: number;
  readonly passed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Extracts the product at `rev` into `dir`, sharing this checkout's node_modules. */
function extractRelease(rev: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const tar = execFileSync(
    'git',
    ['archive', '--format=tar', rev, 'src', 'package.json', 'tsconfig.json'],
    {
      cwd: REPO_ROOT,
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

export async function runDeployDrill(options: DeployDrillOptions): Promise<DeployDrillReport> {
  const log = options.log ?? (() => undefined);
  const n = options.bookings ?? 20;
  const workerCount = options.workers ?? 2;
  const oldRoot = extractRelease(options.from, join(options.workDir, 'old'));
  const newRoot = options.to ? extractRelease(options.to, join(options.workDir, 'new')) : REPO_ROOT;
  const run = `deploy-${randomUUID().slice(0, 6)}`;
  const env = {
    TEMPORAL_TASK_QUEUE: run,
    PAYLOAD_ENCRYPTION_KEYS: `deploy:${randomBytes(32).toString('base64')}`,
  };
  const config = loadConfig(env);
  const stack = await startClusterStack({
    workers: 0,
    tls: options.tls ?? false,
    basePort: options.basePort ?? 27633,
    dataDir: options.dataDir,
    config,
    codecServer: loadCodecServerConfig(parseEnv(env)),
    log,
  });
  const t0 = Date.now();
  const release = (root: string, label: string, i: number) =>
    new WorkerProcess({
      label,
      root,
      // Each release bundles its own workflow code at start.
      env: { ...stack.workerEnv(i), WORKFLOW_BUNDLE_PATH: '' },
      logFile: join(options.dataDir, 'logs', `${label}.log`),
    });
  const workers: WorkerProcess[] = [];
  try {
    for (let i = 0; i < workerCount; i++) workers.push(release(oldRoot, `old-${i + 1}`, i));
    for (const w of workers) w.start();
    await Promise.all(workers.map((w) => w.waitReady(180_000)));
    log(`${workerCount} workers of ${options.from} polling '${run}'`);

    const entry = {
      scenario: 'confirm-after-polls',
      param: options.polls ?? 40,
      weight: 1,
      expect: 'CONFIRMED',
    } as const;
    const ids = Array.from({ length: n }, (_, i) => orderIdFor(run, i));
    await Promise.all(
      ids.map((id) => startWithRetry(stack.bookings, mixInput(entry, id), { timeoutMs: 60_000 })),
    );
    // Every booking waits for the supplier's confirmation, on the old code.
    let waiting = 0;
    for (let tries = 0; tries < 120; tries++) {
      waiting = 0;
      for (const id of ids) {
        const d = await stack.client.workflow.getHandle(bookingWorkflowId(id)).describe();
        if (d.typedSearchAttributes.get(BookingPhaseKey) === 'AWAITING_CONFIRMATION') waiting++;
      }
      if (waiting === n) break;
      await sleep(500);
    }
    log(
      `${waiting}/${n} bookings wait for confirmation; deploying ${options.to ?? 'this checkout'}`,
    );

    // The deploy: old workers drain and stop, new ones take over.
    await Promise.all(workers.map((w) => w.stop(30_000)));
    const fresh = Array.from({ length: workerCount }, (_, i) =>
      release(newRoot, `new-${i + 1}`, i),
    );
    for (const w of fresh) w.start();
    workers.push(...fresh);
    await Promise.all(fresh.map((w) => w.waitReady(180_000)));
    log(`${workerCount} workers of ${options.to ?? 'this checkout'} polling`);

    // 15 min: a poll whose attempt was lost with an old worker is retried on the poll activity's
    // own backoff, which reaches its 10 min cap after about ten polls (seen in this drill).
    const statuses = await waitForSettled(stack.client, ids, {
      timeoutMs: options.settleTimeoutMs ?? 900_000,
      log,
    });
    const report = audit(statuses, ids, simulatorOf(stack));
    let workflowTaskFailures = 0;
    for (const id of ids) {
      const history = await stack.client.workflow.getHandle(bookingWorkflowId(id)).fetchHistory();
      workflowTaskFailures += (history.events ?? []).filter(
        (e) => e.workflowTaskFailedEventAttributes,
      ).length;
    }
    const passed =
      waiting === n &&
      report.outcomes.CONFIRMED === n &&
      report.duplicates.length === 0 &&
      report.lost.length === 0 &&
      workflowTaskFailures === 0;
    return {
      from: options.from,
      to: options.to ?? 'this checkout',
      bookings: n,
      waitingAtDeploy: waiting,
      audit: report,
      workflowTaskFailures,
      durationMs: Date.now() - t0,
      passed,
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop(10_000)));
    await stack.stop();
  }
}

export function formatDeployReport(r: DeployDrillReport): string[] {
  return [
    `deploy drill: ${r.from} → ${r.to}, ${r.bookings} bookings — ${r.passed ? 'PASSED' : 'FAILED'}`,
    `  waiting for confirmation at the deploy: ${r.waitingAtDeploy}/${r.bookings}`,
    `  outcomes after the new workers took over: ${formatCounts(r.audit.outcomes)}; lost ${r.audit.lost.length}, stuck ${r.audit.stuck.length}, duplicates ${r.audit.duplicates.length}`,
    `  workflow task failures (non-determinism shows here): ${r.workflowTaskFailures}`,
    `  ${(r.durationMs / 1000).toFixed(0)} s`,
  ];
}
