/**
 * Several workers on one host, and ports that are taken. The production worker, the codec server
 * and the simulator as subprocesses: a taken port is one line naming the port and the setting
 * that moves it, exit 2; the SDK's internal exporter takes a free port by itself, so workers on
 * one host need only their own METRICS_PORT and HEALTH_PORT.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BookingClient } from '../../src/client';
import { uniqueTaskQueue } from '../helpers/temporal';
import { bookingInput, eventually } from '../helpers/booking-stack';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

const ROOT = join(__dirname, '..', '..');

/** Holds a port on `host` until closed. */
async function holdPort(host: string): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, host, r));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return { port: address.port, server };
}

/** The booking calls a worker logged as returned, by order id. */
function ordersBookedBy(w: WorkerProcess): string[] {
  return w
    .logLines()
    .map((l) => /^booking call returned: order (\S+) →/.exec(String(l.msg ?? ''))?.[1])
    .filter((o): o is string => o !== undefined);
}

/** Runs `node --import tsx <args>` to its end. */
function runNode(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

function assertOneLineNaming(text: string, setting: string, port: number): void {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `one line:\n${text}`);
  assert.ok(lines[0]!.includes(setting), `names ${setting}: ${lines[0]}`);
  assert.ok(lines[0]!.includes(`port ${port}`), `names port ${port}: ${lines[0]}`);
  assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
}

describe('several workers on one host', () => {
  let stack: OpsStack | undefined;
  const workers: WorkerProcess[] = [];
  after(async () => {
    for (const w of workers) w.kill();
    await stack?.close();
  });

  it('runs three workers on one host (two on one task queue, one on another) and each completes bookings', async () => {
    stack = await startOpsStack('one-host');
    const s = stack;
    const otherQueue = uniqueTaskQueue('one-host-other');
    const other = new BookingClient({ client: s.temporal.client, taskQueue: otherQueue });
    // No TEMPORAL_METRICS_PORT: each worker's SDK exporter takes a free port.
    const [a, b, c] = await Promise.all([
      startWorkerProcess({ taskQueue: s.taskQueue, env: s.workerEnv, freeSdkMetricsPort: true }),
      startWorkerProcess({ taskQueue: s.taskQueue, env: s.workerEnv, freeSdkMetricsPort: true }),
      startWorkerProcess({ taskQueue: otherQueue, env: s.workerEnv, freeSdkMetricsPort: true }),
    ]);
    workers.push(a!, b!, c!);
    await Promise.all(workers.map((w) => w.waitReady()));

    // The other task queue: its one worker books it.
    const onOther = bookingInput('instant');
    await other.startBooking(onOther);
    assert.equal((await other.result(onOther.orderId)).outcome, 'CONFIRMED');
    // (Log lines reach stdout asynchronously.)
    await eventually(async () => ordersBookedBy(c!).length > 0, 10_000, 'its log line');
    assert.deepEqual(ordersBookedBy(c!), [onOther.orderId]);

    // The shared task queue: bookings until each of its two workers has made at least one.
    for (let i = 0; i < 40; i++) {
      if (ordersBookedBy(a!).length > 0 && ordersBookedBy(b!).length > 0) break;
      const input = bookingInput('instant');
      await s.bookings.startBooking(input);
      assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
      const logged = () => [...ordersBookedBy(a!), ...ordersBookedBy(b!)].includes(input.orderId);
      await eventually(async () => logged(), 10_000, 'the booking worker to log it');
    }
    assert.ok(ordersBookedBy(a!).length > 0, 'the first worker on the shared queue booked');
    assert.ok(ordersBookedBy(b!).length > 0, 'the second worker on the shared queue booked');
    assert.deepEqual(ordersBookedBy(c!), [onOther.orderId], 'nothing crossed task queues');

    for (const w of workers) {
      const started = w.logLines().find((l) => l.msg === 'metrics listening');
      assert.ok(Number(started?.sdkMetricsPort) > 0, 'the free SDK port is logged');
      const metrics = await (await fetch(w.metricsUrl)).text();
      assert.match(metrics, /^temporal_/m, "the SDK's metrics are served through METRICS_PORT");
    }
    for (const w of workers) w.child.kill('SIGTERM');
    for (const w of workers) assert.equal(await w.exited, 0);
  });
});

describe('a port that is taken', { concurrency: true }, () => {
  let stack: OpsStack;
  const held: Server[] = [];
  before(async () => {
    stack = await startOpsStack('taken-port');
  });
  after(async () => {
    for (const s of held) s.close();
    await stack?.close();
  });

  for (const [setting, host] of [
    ['HEALTH_PORT', '0.0.0.0'],
    ['METRICS_PORT', '0.0.0.0'],
    ['TEMPORAL_METRICS_PORT', '127.0.0.1'],
  ] as const) {
    it(`stops the worker with one line naming ${setting} and the port, exit 2`, async () => {
      const { port, server } = await holdPort(host);
      held.push(server);
      const w = await startWorkerProcess({
        taskQueue: stack.taskQueue,
        env: { ...stack.workerEnv, [setting]: String(port) },
      });
      assert.equal(await w.exited, 2, w.output().stdout + w.output().stderr);
      const { stdout, stderr } = w.output();
      const fatal = w.logLines().filter((l) => l.level === 60 || l.level === 'fatal');
      assert.equal(fatal.length, 1, stdout);
      assertOneLineNaming(JSON.stringify(fatal[0]!.msg), setting, port);
      assert.doesNotMatch(stdout + stderr, /\n\s+at /, 'no stack trace');
    });
  }

  it('stops the codec server with one line naming CODEC_SERVER_PORT, exit 2', async () => {
    const { port, server } = await holdPort('127.0.0.1');
    held.push(server);
    const r = await runNode(['src/codec/main.ts'], { CODEC_SERVER_PORT: String(port) });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assertOneLineNaming(r.stderr, 'CODEC_SERVER_PORT', port);
  });

  it('stops the simulator with one line naming --port, exit 2', async () => {
    const { port, server } = await holdPort('127.0.0.1');
    held.push(server);
    const r = await runNode(['tools/simulator/main.ts', '--port', String(port)], {});
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assertOneLineNaming(r.stderr, '--port', port);
  });
});
