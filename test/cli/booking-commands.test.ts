import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/common';
import { connectBookingClient, type BookRoomInput, type ConnectedClient } from '../../src/client';
import { loadConfig } from '../../src/config';
import { scenarioOptionId, type ScenarioName } from '../../tools/simulator/scenarios';
import { explain, json, startCliStack, type CliStack } from './cli-process';

let counter = 0;
const orderId = (tag: string) =>
  `cli-${tag}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

/** Flags of a valid booking for `scenario`, polling fast. */
function bookFlags(order: string, scenario: ScenarioName, param?: number): string[] {
  return [
    'book',
    '--order',
    order,
    '--option',
    scenarioOptionId(scenario, param !== undefined ? { param } : {}),
    '--guest',
    'Ada Lovelace',
    '--phone-prefix',
    '+39',
    '--phone',
    '3331234567',
    '--email',
    'ada@example.com',
    '--poll-interval',
    '100ms',
  ];
}

/** The same booking as {@link bookFlags}, for set-ups made in-process. */
function input(order: string, scenario: ScenarioName): BookRoomInput {
  return {
    orderId: order,
    optionId: scenarioOptionId(scenario),
    rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
    contact: { phonePrefix: '+39', phone: '3331234567' },
    polling: { initialInterval: '100ms', maximumInterval: '100ms' },
  };
}

describe('the booking commands (book, status, approve, reject, resolve, cancel, list) on a real Temporal server', () => {
  let s: CliStack;
  let client: ConnectedClient;
  before(async () => {
    s = await startCliStack('cli-booking');
    client = await connectBookingClient(loadConfig(s.env));
  });
  after(async () => {
    await client.close();
    await s.stack.stop();
  });

  /** Waits (in-process, cheaper than a CLI call per poll) until the booking is in `phase`. */
  async function phaseOf(order: string, phase: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if ((await client.bookings.state(order)).phase === phase) return;
      } catch {
        // Not started or not yet queryable.
      }
      if (Date.now() > deadline) throw new Error(`${order} never reached ${phase}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('book --wait follows a slow confirmation phase by phase to CONFIRMED (exit 0); status and a second book report it', async () => {
    const order = orderId('slow');
    const booked = await s.run(
      ...bookFlags(order, 'confirm-after-polls', 2),
      '--checkin',
      '2030-01-01',
      '--wait',
    );
    assert.equal(booked.code, 0, explain(booked));
    assert.match(booked.stdout, new RegExp(`Started booking for order ${order}`));
    const phases = [...booked.stdout.matchAll(/^ +[\d.]+ m?s {2}([A-Z_]+)$/gm)].map((m) => m[1]);
    assert.ok(phases.includes('AWAITING_CONFIRMATION'), `phases: ${phases.join(', ')}`);
    assert.equal(phases.at(-1), 'CONFIRMED');
    assert.match(booked.stdout, /│ Outcome +│ CONFIRMED/);
    assert.match(booked.stdout, /│ Supplier booking id +│ \d+/);

    const [status, statusJson, again] = await Promise.all([
      s.run('status', order),
      s.run('--json', 'status', order),
      s.run(...bookFlags(order, 'instant')),
    ]);
    assert.equal(status.code, 0, explain(status));
    assert.match(status.stdout, /│ Outcome +│ CONFIRMED/);
    const doc = json<{ workflowStatus: string; result: { outcome: string; bookingId: number } }>(
      statusJson,
    );
    // Decided, and still running: the booking workflow guards the confirmed order.
    assert.equal(doc.workflowStatus, 'RUNNING');
    assert.equal(doc.result.outcome, 'CONFIRMED');
    assert.equal(again.code, 0, explain(again));
    assert.match(again.stdout, /already ended CONFIRMED; a finished booking is never restarted/);
    assert.equal(
      s.stack.simulator!.bookings({ customFields: { custom_field_10: order } }).length,
      1,
      'one supplier booking for the order',
    );
  });

  it('book --wait --json is one document with the phases, and exit 1 when the room is sold out', async () => {
    const order = orderId('sold');
    const run = await s.run('--json', ...bookFlags(order, 'sold-out'), '--wait');
    assert.equal(run.code, 1, explain(run));
    const doc = json<{
      started: { status: string };
      phases: { phase: string }[];
      result: { outcome: string };
    }>(run);
    assert.equal(doc.started.status, 'STARTED');
    assert.equal(doc.result.outcome, 'NOT_AVAILABLE');
    assert.equal(doc.phases.at(-1)?.phase, 'NOT_AVAILABLE');
  });

  it('a price change beyond tolerance waits for approve (CONFIRMED) or reject (PRICE_REJECTED)', async () => {
    const [a, r] = [orderId('approve'), orderId('reject')];
    const limits = [
      '--expected-net',
      '100.00',
      '--expected-currency',
      'EUR',
      '--max-increase',
      '5',
    ];
    const started = await Promise.all([
      s.run(...bookFlags(a, 'price-up', 30), ...limits),
      s.run('--json', ...bookFlags(r, 'price-up', 30)),
    ]);
    for (const run of started) assert.equal(run.code, 0, explain(run));
    assert.match(started[0].stdout, /Follow it with: status/);
    assert.equal(json<{ started: { status: string } }>(started[1]).started.status, 'STARTED');
    await Promise.all([phaseOf(a, 'AWAITING_APPROVAL'), phaseOf(r, 'AWAITING_APPROVAL')]);

    const status = await s.run('status', a);
    assert.match(status.stdout, /│ Phase +│ AWAITING_APPROVAL/);
    assert.match(status.stdout, /│ Awaiting decision +│ PRICE CHANGE/);
    assert.match(status.stdout, new RegExp(`run \`approve ${a}\` or \`reject ${a}\``));

    const [approved, rejected] = await Promise.all([
      s.run('approve', a),
      s.run('--json', 'reject', r),
    ]);
    assert.equal(approved.code, 0, explain(approved));
    assert.match(approved.stdout, new RegExp(`Approved the change for order ${a}`));
    assert.equal(rejected.code, 0, explain(rejected));
    assert.equal(json<{ state: { phase: string } }>(rejected).state.phase, 'PRICE_REJECTED');
    assert.equal((await client.bookings.result(a)).outcome, 'CONFIRMED');

    const late = await s.run('approve', a);
    assert.equal(late.code, 1, explain(late));
    assert.match(late.stderr, /has already ended \(CONFIRMED\): nothing is left to approve/);
  });

  it('a lost booking answer is listed as NEEDS_RECONCILIATION and resolved with the supplier booking id', async () => {
    const order = orderId('lost');
    await client.bookings.startBooking(input(order, 'booking-lost'));
    await phaseOf(order, 'NEEDS_RECONCILIATION');

    // Visibility is eventually consistent: ask again until the search attribute is indexed.
    let listed: { orderId: string; phase: string }[] = [];
    for (let i = 0; i < 10 && !listed.some((b) => b.orderId === order); i++) {
      const run = await s.run('--json', 'list', '--phase', 'NEEDS_RECONCILIATION');
      assert.equal(run.code, 0, explain(run));
      listed = json<{ bookings: { orderId: string; phase: string }[] }>(run).bookings;
    }
    assert.ok(listed.some((b) => b.orderId === order && b.phase === 'NEEDS_RECONCILIATION'));
    const table = await s.run('list', '--phase', 'NEEDS_RECONCILIATION');
    assert.match(table.stdout, new RegExp(`│ ${order} +│ NEEDS_RECONCILIATION`));

    const [found] = s.stack.simulator!.bookings({ customFields: { custom_field_10: order } });
    assert.ok(found, 'the simulator committed the booking');
    const [neither, resolved] = await Promise.all([
      s.run('resolve', order),
      s.run('resolve', order, '--booking-id', String(found.bookingId)),
    ]);
    assert.equal(neither.code, 2, explain(neither));
    assert.match(neither.stderr, /--booking-id <id>.*or --no-booking/);
    assert.equal(resolved.code, 0, explain(resolved));
    assert.match(
      resolved.stdout,
      new RegExp(
        `Resolved order ${order} with supplier booking ${found.bookingId}; the booking is now CONFIRMED`,
      ),
    );
    assert.equal((await client.bookings.result(order)).bookingId, found.bookingId);
  });

  it('cancel reaches a running booking through its update, a confirmed one through its guard, and a supplier booking by id', async () => {
    const [pending, confirmed, byId] = [orderId('c-pending'), orderId('c-202'), orderId('c-id')];
    // Set up in-process: `book` itself is tested above.
    await Promise.all([
      client.bookings.startBooking(input(pending, 'pending-long')),
      client.bookings.startBooking(input(confirmed, 'cancel-202-resolves')),
      client.bookings.startBooking(input(byId, 'instant')),
    ]);
    await phaseOf(pending, 'AWAITING_CONFIRMATION');
    assert.equal((await client.bookings.result(confirmed)).outcome, 'CONFIRMED');
    const bookingId = (await client.bookings.result(byId)).bookingId!;

    const [running, done, supplier, neither] = await Promise.all([
      s.run('cancel', pending, '--reason', 'guest changed plans', '--wait'),
      s.run('--json', 'cancel', confirmed, '--wait'),
      s.run('cancel', '--booking-id', String(bookingId), '--wait', '--poll-interval', '100ms'),
      s.run('cancel'),
    ]);
    assert.equal(running.code, 0, explain(running));
    assert.match(running.stdout, new RegExp(`Cancellation requested for order ${pending}`));
    assert.match(running.stdout, /│ Outcome +│ CANCELLED/);

    // A confirmed order is held by its guard: the cancel goes there, 202 and all.
    assert.equal(done.code, 0, explain(done));
    const doc = json<{
      action: string;
      state: { holder: string; truth: string; cancellation?: { outcome?: string } };
    }>(done);
    assert.equal(doc.action, 'requested');
    assert.equal(doc.state.holder, 'guard');
    assert.equal(doc.state.truth, 'CANCELLED');
    assert.equal(doc.state.cancellation?.outcome, 'CANCELLED');

    assert.equal(supplier.code, 0, explain(supplier));
    assert.match(supplier.stdout, /│ Cancellation +│ CANCELLED/);
    assert.equal(neither.code, 2, explain(neither));
  });

  it('bad input is exit 2 naming every field on stderr, and starts no workflow', async () => {
    const order = orderId('bad');
    const [human, machine] = await Promise.all([
      s.run(
        'book',
        '--order',
        order,
        '--guest',
        'Ada',
        '--phone-prefix',
        'x',
        '--email',
        'nope',
        '--custom-field',
        'custom_field_10=mine',
      ),
      s.run(
        '--json',
        'book',
        '--order',
        order,
        '--option',
        'x',
        '--guest',
        'Ada Lovelace',
        '--phone-prefix',
        '+39',
        '--phone',
        '333',
        '--max-increase',
        'lots',
      ),
    ]);
    assert.equal(human.code, 2, explain(human));
    for (const field of [
      'optionId (--option)',
      'rooms.0 (--guest)',
      'contact.phonePrefix (--phone-prefix)',
      'contact.phone (--phone)',
      'contact.email (--email)',
      'customFields.custom_field_10',
    ]) {
      assert.ok(human.stderr.includes(field), `${field} is named:\n${human.stderr}`);
    }
    assert.match(human.stderr, /nothing was started/);

    assert.equal(machine.code, 2, explain(machine));
    const fields = json<{ error: { code: string; issues: { field: string }[] } }>(machine).error;
    assert.equal(fields.code, 'INVALID_INPUT');
    assert.deepEqual(fields.issues.map((i) => i.field).sort(), [
      'contact.phone (--phone)',
      'priceChangePolicy.maxIncreasePercent (--max-increase)',
    ]);
    await assert.rejects(client.bookings.handle(order).describe(), WorkflowNotFoundError);
  });

  it('book --input takes the whole input from a JSON file, flags overriding its fields', async () => {
    const order = orderId('file');
    const file = join(process.env.TEST_WORK_DIR ?? '/tmp', `${order}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        orderId: 'overridden-by-the-flag',
        optionId: scenarioOptionId('instant'),
        rooms: [{ firstName: 'Grace', lastName: 'Hopper' }],
        contact: { phonePrefix: '+1', phone: '5550100' },
      }),
    );
    const run = await s.run('--json', 'book', '--input', file, '--order', order, '--wait');
    assert.equal(run.code, 0, explain(run));
    assert.equal(
      json<{ result: { orderId: string; outcome: string } }>(run).result.outcome,
      'CONFIRMED',
    );
    assert.equal((await client.bookings.result(order)).orderId, order);
  });
});
