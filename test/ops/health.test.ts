/**
 * Readiness follows Temporal: the worker process, pointed at a dev server of this test's own,
 * answers `/readyz` 200 while the server is up, 503 with a reason once it is gone (liveness
 * staying 200: a restart would not help), and 200 again when a server is back on that address.
 * A worker that starts while no server answers waits for one (one log line, the reason on
 * `/readyz`) and polls once it is up; a SIGTERM meanwhile ends it at once with 0.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  restartablePort,
  startDevServer,
  type DevServer,
} from '../../tools/temporal-server/dev-server';
import { eventually } from '../helpers/booking-stack';
import { uniqueTaskQueue } from '../helpers/temporal';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

async function probe(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('health endpoints', () => {
  const servers: DevServer[] = [];
  let stack: OpsStack | undefined;
  let worker: WorkerProcess | undefined;
  const workers: WorkerProcess[] = [];
  after(async () => {
    worker?.kill();
    for (const w of workers) w.kill();
    await stack?.close();
    for (const s of servers) await s.stop();
  });

  it('the health endpoint flips to not-ready when Temporal goes away, and back when it returns', async () => {
    // Started again on the same port below: one no other process's listen(0) can take meanwhile.
    const port = await restartablePort();
    const server = await startDevServer({ headless: true, port });
    servers.push(server);
    // The simulator is only there for the configuration; no booking runs here.
    stack = await startOpsStack('health');
    worker = await startWorkerProcess({
      taskQueue: uniqueTaskQueue('health'),
      env: { ...stack.workerEnv, TEMPORAL_ADDRESS: server.address },
    });
    await worker.waitReady();
    const ready = await probe(`${worker.healthUrl}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(ready.body.ready, true);
    assert.deepEqual(ready.body.worker, {
      state: 'RUNNING',
      workflowPoller: 'POLLING',
      activityPoller: 'POLLING',
    });

    await server.kill();
    const down = await eventually(
      async () => {
        const r = await probe(`${worker!.healthUrl}/readyz`);
        return r.status === 503 ? r : undefined;
      },
      30_000,
      '/readyz to answer 503',
    );
    assert.equal(down.body.ready, false);
    assert.match(String(down.body.reason), /Temporal unreachable|worker is|poller/);
    const live = await probe(`${worker.healthUrl}/healthz`);
    assert.equal(live.status, 200, 'the process itself is fine');
    assert.equal(live.body.live, true);

    // A server back on the same address: the worker reconnects and is ready again.
    servers.push(await startDevServer({ headless: true, port }));
    await worker.waitReady(60_000);
  });

  /** A worker process pointed at a free port where no server listens (yet). */
  async function workerWithNoServer(name: string) {
    const port = await restartablePort();
    stack ??= await startOpsStack('health');
    const started = await startWorkerProcess({
      taskQueue: uniqueTaskQueue(name),
      env: { ...stack.workerEnv, TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
    });
    workers.push(started);
    return { port, waiting: started };
  }

  it('a worker started while no Temporal server answers waits for one, says so, and polls once it is up', async () => {
    const { port, waiting } = await workerWithNoServer('health-wait');
    const exitedEarly = waiting.exited.then((code) => `exited ${String(code)}`);
    const seen = await eventually(
      async () => {
        if (waiting.child.exitCode !== null) return { exited: waiting.output().stdout.slice(-600) };
        const r = await probe(`${waiting.healthUrl}/readyz`).catch(() => undefined);
        return r?.status === 503 && /Temporal/.test(String(r.body.reason)) ? r : undefined;
      },
      30_000,
      '/readyz to say the worker waits for Temporal',
    );
    assert.ok(!('exited' in seen), `the worker exited instead of waiting: ${JSON.stringify(seen)}`);
    assert.match(
      String(seen.body.reason),
      /^starting: Temporal unreachable at 127\.0\.0\.1:\d+ \(connection refused\)/,
    );
    // Several attempts later: still alive, and one warning, not one per attempt.
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal(await Promise.race([exitedEarly, Promise.resolve('running')]), 'running');
    const warnings = waiting.logLines().filter((l) => /waiting for it/.test(String(l.msg)));
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]!.level, 'warn');
    assert.match(String(warnings[0]!.msg), /TEMPORAL_ADDRESS/);

    servers.push(await startDevServer({ headless: true, port }));
    await waiting.waitReady(60_000);
    const lines = waiting.logLines();
    assert.ok(
      lines.some((l) => /Temporal answered after/.test(String(l.msg))),
      'says when it got through',
    );
    assert.ok(!lines.some((l) => l.level === 'fatal'), 'nothing fatal');
  });

  it('a SIGTERM while the worker waits for Temporal ends it at once with exit code 0', async () => {
    const { waiting } = await workerWithNoServer('health-term');
    await eventually(
      async () => waiting.logLines().some((l) => /waiting for it/.test(String(l.msg))),
      30_000,
      'the worker to wait for Temporal',
    );
    const t0 = Date.now();
    waiting.child.kill('SIGTERM');
    assert.equal(await waiting.exited, 0);
    assert.ok(Date.now() - t0 < 5_000, `exited within 5 s (${Date.now() - t0} ms)`);
    assert.ok(
      waiting.logLines().some((l) => /shutdown requested during start-up/.test(String(l.msg))),
    );
  });
});
