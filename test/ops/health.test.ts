/**
 * Readiness follows Temporal: the worker process, pointed at a dev server of this test's own,
 * answers `/readyz` 200 while the server is up, 503 with a reason once it is gone (liveness
 * staying 200: a restart would not help), and 200 again when a server is back on that address.
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
  after(async () => {
    worker?.kill();
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
});
