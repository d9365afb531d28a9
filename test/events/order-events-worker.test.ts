/**
 * Order events with the production worker process: an event whose delivery is in flight when the
 * worker is SIGKILLed is delivered, with the same webhook-id, by the worker started after it; the
 * logs name the order and the HTTP status, never the body; bad ORDER_EVENTS_* settings stop the
 * worker with one line naming the variable.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bookingInput, eventually } from '../helpers/booking-stack';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from '../ops/worker-process';

describe('order events and the worker process', () => {
  let stack: OpsStack | undefined;
  let receiver: WebhookReceiver | undefined;
  const workers: WorkerProcess[] = [];
  after(async () => {
    for (const w of workers) w.kill();
    await receiver?.close();
    await stack?.close();
  });

  it('a worker killed while an event is being delivered: the next worker delivers it, same webhook-id', async () => {
    stack = await startOpsStack('order-events-kill');
    receiver = await startWebhookReceiver();
    const s = stack;
    const env = {
      ...s.workerEnv,
      ORDER_EVENTS_URL: receiver.url,
      ORDER_EVENTS_SECRET: receiver.secret,
    };
    const first = await startWorkerProcess({ taskQueue: s.taskQueue, env });
    workers.push(first);
    await first.waitReady();
    receiver.hang(true);
    const input = bookingInput('instant', { guard: { enabled: false } });
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    const [inFlight] = await eventually(
      async () => (receiver!.held().length > 0 ? receiver!.held() : undefined),
      30_000,
      'a delivery in flight at the endpoint',
    );
    first.kill();
    await first.exited;
    receiver.hang(false);
    const second = await startWorkerProcess({ taskQueue: s.taskQueue, env });
    workers.push(second);
    await second.waitReady();
    const [event] = await eventually(
      async () => {
        const got = receiver!.events(input.orderId);
        return got.length > 0 ? got : undefined;
      },
      90_000,
      'the event delivered after the restart',
    );
    assert.equal(event!.type, 'order.confirmed');
    assert.equal(event!.id, inFlight, 'the webhook-id of the attempt the kill cut short');
    // The worker's log lines are flushed for sure once it stopped.
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
    const lines = second.logLines().filter((l) => String(l.msg).startsWith('Order event'));
    const delivered = lines.find((l) => l.msg === 'Order event delivered');
    assert.equal(delivered?.orderId, input.orderId);
    assert.equal(delivered?.status, 204);
    const text = JSON.stringify(lines);
    for (const secretOrBody of [receiver.secret, '"truth"', '"price"'])
      assert.ok(!text.includes(secretOrBody), `logs show ${secretOrBody}`);
  });

  it('bad ORDER_EVENTS_* settings stop the worker with one line naming the variable', async () => {
    stack ??= await startOpsStack('order-events-config');
    for (const [env, variable] of [
      [
        {
          ORDER_EVENTS_URL: 'ftp://orders.example/hooks',
          ORDER_EVENTS_SECRET: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
        },
        'ORDER_EVENTS_URL',
      ],
      [
        {
          ORDER_EVENTS_URL: 'https://orders.example/hooks',
          ORDER_EVENTS_SECRET: 'SENTINEL-not-whsec',
        },
        'ORDER_EVENTS_SECRET',
      ],
    ] as const) {
      const w = await startWorkerProcess({
        taskQueue: stack.taskQueue,
        env: { ...stack.workerEnv, ...env },
      });
      workers.push(w);
      assert.equal(await w.exited, 2);
      const { stdout, stderr } = w.output();
      const fatal = w.logLines().find((l) => l.level === 'fatal' || l.level === 60);
      assert.ok(fatal, stdout + stderr);
      assert.match(JSON.stringify(fatal), new RegExp(`${variable}: `));
      assert.ok(!(stdout + stderr).includes('SENTINEL'), 'the secret is not echoed');
      assert.ok(!stderr.includes('    at '), 'no stack trace');
    }
  });
});
