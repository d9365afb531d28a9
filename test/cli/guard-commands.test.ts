/**
 * The CLI on guarded orders, end to end: `book` through bookRoom (which hands a CONFIRMED order to
 * its guard), then `status`, `cancel [--accept-penalty]` and `keep` as an operator runs them, each
 * checked against the client's state and the guard's search attributes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  connectBookingClient,
  type OrderResult,
  type BookRoomInput,
  type ConnectedClient,
  type OrderState,
} from '../../src/client';
import { loadConfig } from '../../src/config';
import { BookingPhaseKey } from '../../src/shared/search-attributes';
import { scenarioOptionId } from '../../tools/simulator/scenarios';
import { explain, json, startCliStack, type CliStack } from './cli-process';

let counter = 0;
const orderId = (tag: string) =>
  `cli-g-${tag}-${process.pid}-${Date.now().toString(36)}-${++counter}`;
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

describe('the CLI on guarded orders (status, cancel --accept-penalty, keep)', () => {
  let s: CliStack;
  let client: ConnectedClient;
  before(async () => {
    s = await startCliStack('cli-guard');
    client = await connectBookingClient(loadConfig(s.env));
  });
  after(async () => {
    await client.close();
    await s.stack.stop();
  });

  function input(order: string, extra: Partial<BookRoomInput> & { checkin?: string } = {}) {
    const { checkin, ...rest } = extra;
    return {
      orderId: order,
      optionId: scenarioOptionId('instant', checkin ? { checkin } : {}),
      rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
      contact: { phonePrefix: '+39', phone: '3331234567' },
      polling: { initialInterval: '100ms', maximumInterval: '100ms' },
      ...rest,
    } satisfies BookRoomInput;
  }

  /** Books through bookRoom and waits until the guard holds the order with its terms read. */
  async function guarded(order: string, extra: Parameters<typeof input>[1] = {}) {
    await client.bookings.startBooking(input(order, extra));
    assert.equal((await client.bookings.result(order)).outcome, 'CONFIRMED');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const st = await client.bookings.state(order).catch(() => undefined);
      if (st?.holder === 'guard' && (st.reconfirmations?.length ?? 0) >= 1) return st;
      if (Date.now() > deadline) throw new Error(`${order} was never guarded`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The BookingPhase attribute of the workflow guarding the order. */
  const phaseAttribute = async (order: string) =>
    (await client.bookings.handle(order).describe()).typedSearchAttributes.get(BookingPhaseKey);

  it('after free cancellation ends: cancel is refused naming the deadline (exit 1), --accept-penalty cancels; status agrees throughout', async () => {
    const order = orderId('penalty');
    // Check-in tomorrow: the supplier's free cancellation ended yesterday at noon.
    const st = await guarded(order, { checkin: tomorrow() });
    const deadline = st.terms?.freeCancellationUntil;
    assert.ok(deadline);

    const status = await s.run('--json', 'status', order);
    assert.equal(status.code, 0, explain(status));
    const doc = json<{ state: OrderState; result: { outcome: string } }>(status);
    assert.equal(doc.result.outcome, 'CONFIRMED');
    assert.equal(doc.state.truth, 'CONFIRMED');
    assert.equal(doc.state.holder, 'guard');
    assert.equal(doc.state.terms?.freeCancellationUntil, deadline);
    assert.equal(await phaseAttribute(order), doc.state.phase);

    const refused = await s.run('cancel', order, '--reason', 'guest changed plans');
    assert.equal(refused.code, 1, explain(refused));
    assert.ok(refused.stderr.includes(`free cancellation ended at ${deadline}`), explain(refused));
    assert.match(refused.stderr, /--accept-penalty/);
    const [b] = s.stack.simulator!.bookings({ customFields: { custom_field_10: order } });
    assert.equal(b?.cancelRequests, 0, 'nothing was sent to the supplier');

    const done = await s.run('--json', 'cancel', order, '--accept-penalty', '--wait');
    assert.equal(done.code, 0, explain(done));
    const cancelled = json<{ state: OrderState }>(done).state;
    assert.equal(cancelled.truth, 'CANCELLED');
    assert.equal(cancelled.cancellation?.acceptPenalty, true);

    const after = await s.run('status', order);
    assert.equal(after.code, 0, explain(after));
    assert.match(after.stdout, /│ Truth +│ CANCELLED/);
    assert.equal(await phaseAttribute(order), 'CANCELLED');
    assert.equal((await client.bookings.state(order)).truth, 'CANCELLED');
  });

  it('keep stops the automatic cancellation of a provisional order; keep without the policy is refused', async () => {
    const [provisional, plain] = [orderId('keep'), orderId('plain')];
    await Promise.all([
      guarded(provisional, { guard: { autoCancelBeforePenalty: true } }),
      guarded(plain),
    ]);
    const [kept, refused] = await Promise.all([
      s.run('keep', provisional, '--reason', 'paid'),
      s.run('keep', plain),
    ]);
    assert.equal(kept.code, 0, explain(kept));
    assert.match(kept.stdout, /will not be cancelled automatically/);
    assert.match(kept.stdout, /│ Auto-cancel +│ kept by the order system/);
    assert.equal((await client.bookings.state(provisional)).autoCancel?.kept, true);
    assert.equal(refused.code, 1, explain(refused));
    assert.match(refused.stderr, /without autoCancelBeforePenalty/);
  });

  it('cancel of a confirmed order goes to its guard; a 202 resolves (exit 0) and status says CANCELLED', async () => {
    const order = orderId('202');
    await client.bookings.startBooking({
      ...input(order),
      optionId: scenarioOptionId('cancel-202-resolves'),
    });
    assert.equal((await client.bookings.result(order)).outcome, 'CONFIRMED');
    const run = await s.run('--json', 'cancel', order, '--wait');
    assert.equal(run.code, 0, explain(run));
    const doc = json<{ action: string; state: OrderState }>(run);
    assert.equal(doc.action, 'requested');
    assert.equal(doc.state.holder, 'guard');
    assert.equal(doc.state.truth, 'CANCELLED');
    assert.equal(doc.state.cancellation?.outcome, 'CANCELLED');
    assert.equal(await phaseAttribute(order), 'CANCELLED');
  });

  it('a booking the supplier cancelled is flagged: status says so and list --phase CANCELLED_BY_SUPPLIER finds it', async () => {
    const order = orderId('ghost');
    const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();
    await client.bookings.startBooking({
      ...input(order),
      optionId: scenarioOptionId('supplier-cancels', { param: 2 }),
      guard: { checkInAt: isoIn(20_000), checkOutAt: isoIn(25_000), reconfirmBefore: ['12s'] },
    });
    assert.equal((await client.bookings.result(order)).outcome, 'CONFIRMED');
    const closed = await client.bookings.handle(order).result();
    assert.equal((closed as OrderResult).guard?.phase, 'CANCELLED_BY_SUPPLIER');

    const status = await s.run('status', order);
    assert.equal(status.code, 0, explain(status));
    assert.match(status.stdout, /│ Truth +│ CANCELLED_BY_SUPPLIER/);
    assert.match(status.stdout, /│ Flag +│ SUPPLIER_CANCELLED/);
    assert.match(status.stdout, /Next: the supplier cancelled the booking/);
    let listed: { orderId: string }[] = [];
    for (let i = 0; i < 20 && !listed.some((b) => b.orderId === order); i++) {
      const run = await s.run('--json', 'list', '--phase', 'CANCELLED_BY_SUPPLIER');
      assert.equal(run.code, 0, explain(run));
      listed = json<{ bookings: { orderId: string }[] }>(run).bookings;
    }
    assert.ok(
      listed.some((b) => b.orderId === order),
      JSON.stringify(listed),
    );
  });
});
