/**
 * The order-event receivers of examples/order-events-receiver (docs/order-events.md), each
 * verifying with its language's `standardwebhooks` library: a real booking's events reach them
 * verified, and a request signed with another secret is refused.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../../tools/temporal-server/dev-server';
import { bookingInput, eventually, startBookingStack } from '../helpers/booking-stack';
import { pythonEnv } from '../helpers/python';
import { newWebhookSecret } from '../helpers/webhook-receiver';
import { Webhook } from 'standardwebhooks';

const ROOT = join(__dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'order-events-receiver');
const python = pythonEnv(join(EXAMPLE, 'requirements.txt'));

const RECEIVERS: { name: string; command: () => [string, string[]]; skip?: string }[] = [
  {
    name: 'TypeScript',
    command: () => [process.execPath, ['--import', 'tsx', join(EXAMPLE, 'receiver.ts')]],
  },
  {
    name: 'Python',
    command: () => [
      python.skip === undefined ? python.python : 'python3',
      [join(EXAMPLE, 'receiver.py')],
    ],
    ...(python.skip !== undefined ? { skip: python.skip } : {}),
  },
];

describe('the example receivers of order events', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  for (const r of RECEIVERS) {
    it(
      `${r.name}: verifies a real booking's events and refuses a forged one`,
      { skip: r.skip },
      async () => {
        const secret = newWebhookSecret();
        const port = await freePort();
        const [cmd, args] = r.command();
        const child = spawn(cmd, [...args, String(port)], {
          cwd: ROOT,
          env: { ...process.env, ORDER_EVENTS_SECRET: secret },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        let out = '';
        let err = '';
        child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
        const url = `http://127.0.0.1:${port}/`;
        await eventually(
          async () =>
            (await fetch(url, { method: 'POST', body: '{}' }).catch(() => undefined))?.status ===
            400,
          30_000,
          `the ${r.name} receiver listening (${err})`,
        );
        // Signed with another secret: refused.
        const forged = new Webhook(newWebhookSecret());
        const body = JSON.stringify({
          type: 'order.confirmed',
          timestamp: new Date().toISOString(),
          data: {},
        });
        const forgedRes = await fetch(url, {
          method: 'POST',
          body,
          headers: {
            'webhook-id': 'evt_forged',
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': forged.sign('evt_forged', new Date(), body),
          },
        });
        assert.equal(forgedRes.status, 400);

        const s = await startBookingStack(`receiver-${r.name}`, { orderEvents: { url, secret } });
        try {
          const input = bookingInput('instant', { guard: { enabled: false } });
          await s.bookings.startBooking(input);
          const line = await eventually(
            async () => out.split('\n').find((l) => l.includes(input.orderId)),
            60_000,
            `the ${r.name} receiver printing ${input.orderId} (stdout ${out}, stderr ${err})`,
          );
          assert.match(line, new RegExp(`^evt_\\S+ order\\.confirmed ${input.orderId}$`));
          assert.ok(!out.includes('evt_forged'));
        } finally {
          await s.close();
        }
      },
    );
  }
});
