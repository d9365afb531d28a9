/**
 * The hand-over's batching, against a stand-in for the Temporal client's signal-with-start (the
 * end-to-end tests hand over to a real server: test/events/order-event-delivery.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import { createHandover, MAX_HANDOVER_EVENTS } from '../../src/order-events/activities/handover';
import { orderEventId, type OrderEvent } from '../../src/order-events/contract/event';

const event = (orderId: string, sequence = 1): OrderEvent => ({
  id: orderEventId(orderId, sequence),
  type: 'order.confirmed',
  timestamp: '2027-01-01T00:00:00.000Z',
  data: { orderId, truth: 'CONFIRMED', phase: 'CONFIRMED', sequence },
});

/** Records each signal-with-start: its workflow id and the events it carried. */
function recordingClient(answer: () => Promise<void> = () => Promise.resolve()) {
  const sent: { workflowId: string; ids: string[]; at: number }[] = [];
  const client = {
    workflow: {
      async signalWithStart(_type: string, o: { workflowId: string; signalArgs: [OrderEvent[]] }) {
        sent.push({
          workflowId: o.workflowId,
          ids: o.signalArgs[0].map((e) => e.id),
          at: Date.now(),
        });
        await answer();
      },
    },
  } as unknown as Client;
  return { client, sent };
}

describe('the hand-over', () => {
  it("gathers a worker's events into one signal, sent when the oldest has waited the gather", async () => {
    const { client, sent } = recordingClient();
    const handover = createHandover({ start: {}, gatherMs: 100 });
    const t0 = Date.now();
    await Promise.all(['a', 'b', 'c'].map((o) => handover.add(event(o), client, 'q', t0)));
    assert.equal(sent.length, 1);
    assert.deepEqual(
      sent[0]!.ids,
      ['a', 'b', 'c'].map((o) => orderEventId(o, 1)),
    );
    assert.equal(sent[0]!.workflowId, 'order-events:q');
    assert.ok(sent[0]!.at - t0 >= 90, `sent after ${sent[0]!.at - t0} ms`);
  });

  it('sends at once an event whose announcement waited the gather already (a failed direct attempt)', async () => {
    const { client, sent } = recordingClient();
    const handover = createHandover({ start: {}, gatherMs: 10_000 });
    const t0 = Date.now();
    await handover.add(event('a'), client, 'q', t0 - 10_000);
    assert.equal(sent.length, 1);
    assert.ok(Date.now() - t0 < 1_000);
  });

  it('sends one signal at a time, at most so many events each; an order’s events stay in order', async () => {
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    let calls = 0;
    const { client, sent } = recordingClient(() => (calls++ === 0 ? first : Promise.resolve()));
    const handover = createHandover({ start: {}, gatherMs: 0 });
    const t0 = Date.now();
    const one = handover.add(event('a', 1), client, 'q', t0);
    await new Promise((r) => setTimeout(r, 20));
    // While the first signal is out, the next events wait for it.
    const more = Array.from({ length: MAX_HANDOVER_EVENTS + 1 }, (_, i) =>
      handover.add(event(i === 0 ? 'a' : `o${i}`, i === 0 ? 2 : 1), client, 'q', t0),
    );
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(sent.length, 1);
    release();
    await Promise.all([one, ...more]);
    assert.deepEqual(
      sent.map((s) => s.ids.length),
      [1, MAX_HANDOVER_EVENTS, 1],
    );
    assert.equal(sent[1]!.ids[0], orderEventId('a', 2));
  });

  it('a signal Temporal refused fails its events’ announcements (their local activities retry)', async () => {
    const { client } = recordingClient(() => Promise.reject(new Error('unavailable')));
    const handover = createHandover({ start: {}, gatherMs: 0 });
    await assert.rejects(handover.add(event('a'), client, 'q', Date.now()), /unavailable/);
  });
});
