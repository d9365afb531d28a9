/**
 * Several supplier accounts, end to end: a dev server, the simulator over HTTP with a company per
 * account, the booking worker and a worker per account (build-worker.ts), as `npm run worker`
 * wires them. Each order goes to the account it names for its whole life; an unknown or disabled
 * account takes no new order and nothing is booked; a disabled account's running orders go on; an
 * account that hangs holds only its own slots; a caller that never heard of accounts books
 * through the default account.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Worker } from '@temporalio/worker';
import { BookingClient, type BookRoomInput } from '../../src/client';
import {
  createBookingWorker,
  createSupplierAccountWorker,
  type BookingWorkerOptions,
} from '../../src/build-worker';
import { HotelApiClient } from '../../src/hotel-api';
import { SupplierAccountKey } from '../../src/shared/search-attributes';
import { bookingWorkflowId } from '../../src/shared/booking-values';
import { outcomeUpdate } from '../../src/shared/booking-messages';
import { buildSimulator, type Simulator } from '../../tools/simulator';
import { bookingInput, COMPANY, eventually, hotelApiConfig } from '../helpers/booking-stack';
import {
  connectTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';

const EU = { key: 'eu-key', secret: 'eu-secret-0123456789' } as const;
const US = { key: 'us-key', secret: 'us-secret-0123456789' } as const;

interface Hanging {
  readonly url: string;
  /** Connections taken so far: a read that timed out is retried on a new one. */
  accepted(): number;
  close(): Promise<void>;
}

/** A supplier that accepts connections and never answers. */
async function hangingSupplier(): Promise<Hanging> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((s) => {
    accepted += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe('several supplier accounts', { concurrency: false }, () => {
  let temporal: TestTemporal;
  let sim: Simulator;
  let simUrl: string;
  let hanging: Hanging;
  let taskQueue: string;
  let bookings: BookingClient;
  const clients: HotelApiClient[] = [];
  let main: { worker: Worker; running: Promise<void> } | undefined;
  const accountWorkers: { worker: Worker; running: Promise<void> }[] = [];

  const client = (baseUrl: string, company: { key: string; secret: string }, readMs = 5_000) => {
    const c = new HotelApiClient(
      hotelApiConfig(baseUrl, {
        ...company,
        timeouts: { bookingMs: 10_000, readMs, searchMs: 5_000 },
      }),
    );
    clients.push(c);
    return c;
  };

  /** The booking worker, with `accounts` as the configuration names them. */
  async function startMain(accounts: BookingWorkerOptions['accounts']): Promise<void> {
    const worker = await createBookingWorker({
      workflowBundle: await testWorkflowBundle(),
      connection: temporal.nativeConnection,
      taskQueue,
      hotelApi: client(simUrl, COMPANY),
      dataConverter: testDataConverter,
      shutdownGraceTime: '1s',
      // As the worker process runs several accounts: no supplier read is local.
      localCallsPerSecond: 0,
      ...(accounts ? { accounts } : {}),
    });
    main = { worker, running: worker.run() };
  }

  async function stopMain(): Promise<void> {
    main?.worker.shutdown();
    await main?.running;
    main = undefined;
  }

  async function startAccount(
    account: string,
    hotelApi: HotelApiClient,
    maxConcurrentActivities = 20,
  ): Promise<void> {
    const worker = await createSupplierAccountWorker({
      connection: temporal.nativeConnection,
      taskQueue,
      account,
      hotelApi,
      dataConverter: testDataConverter,
      maxConcurrentActivities,
      shutdownGraceTime: '1s',
    });
    accountWorkers.push({ worker, running: worker.run() });
  }

  const ACCOUNTS = [
    { id: 'default', enabled: true },
    { id: 'eu', enabled: true },
    { id: 'us', enabled: true },
    { id: 'hang', enabled: true },
  ];

  before(async () => {
    sim = buildSimulator({
      companies: [
        { ...COMPANY, active: true },
        { ...EU, active: true },
        { ...US, active: true },
      ],
      inspection: true,
      seed: 7,
      firstBookingId: 1_000_000_000 + randomInt(0, 1_000_000) * 1_000,
    });
    simUrl = (await sim.listen(0, '127.0.0.1')).url.replace(/\/api\/v1\/?$/, '');
    hanging = await hangingSupplier();
    temporal = await connectTemporal();
    taskQueue = uniqueTaskQueue('accounts');
    bookings = new BookingClient({ client: temporal.client, taskQueue });
    await startMain(ACCOUNTS);
    await startAccount('eu', client(simUrl, EU));
    await startAccount('us', client(simUrl, US));
    // Two slots, and reads that hang up to 15 s (the production read timeout).
    await startAccount('hang', client(hanging.url, EU, 15_000), 2);
  });

  after(async () => {
    await stopMain();
    for (const w of accountWorkers) w.worker.shutdown();
    await Promise.all(accountWorkers.map((w) => w.running));
    for (const c of clients) await c.close();
    await temporal?.close();
    await hanging?.close();
    await sim?.close();
  });

  const book = async (input: BookRoomInput) => bookings.result(await bookings.startBooking(input));

  const companyOf = (orderId: string) =>
    sim.bookings({ customFields: { custom_field_10: orderId } }).map((b) => b.companyKey);

  it('each order goes to the account it names, for its whole life (booking, state, search attribute, cancel)', async () => {
    const eu = bookingInput('instant', { supplier: 'eu' });
    const us = bookingInput('instant', { supplier: 'us' });
    const plain = bookingInput('instant');
    const [a, b, c] = await Promise.all([eu, us, plain].map((i) => book(i)));
    assert.equal(a!.outcome, 'CONFIRMED', a!.reason);
    assert.equal(b!.outcome, 'CONFIRMED', b!.reason);
    assert.equal(c!.outcome, 'CONFIRMED', c!.reason);
    assert.deepEqual(companyOf(eu.orderId), [EU.key]);
    assert.deepEqual(companyOf(us.orderId), [US.key]);
    assert.deepEqual(companyOf(plain.orderId), [COMPANY.key]);

    const state = await bookings.state(eu.orderId);
    assert.equal(state.supplier, 'eu');
    assert.equal((await bookings.state(plain.orderId)).supplier, undefined);
    const described = await temporal.client.workflow
      .getHandle(bookingWorkflowId(eu.orderId))
      .describe();
    assert.equal(described.typedSearchAttributes.get(SupplierAccountKey), 'eu');

    // The guard's cancel goes to the account too: the simulator cancels only its company's booking.
    await bookings.cancelOrder(eu.orderId, { reason: 'accounts test', acceptPenalty: true });
    await eventually(
      async () => {
        const [booking] = sim.bookings({ customFields: { custom_field_10: eu.orderId } });
        return booking?.status === 'CANCELLED';
      },
      30_000,
      'the eu booking cancelled at the eu company',
    );
  });

  it('an unknown account is refused by name at the first step, with nothing booked or priced', async () => {
    const input = bookingInput('instant', { supplier: 'nowhere' });
    const result = await book(input);
    assert.equal(result.outcome, 'FAILED');
    assert.equal(result.error?.code, 'INVALID_INPUT');
    assert.match(result.error!.message, /^supplier: no account 'nowhere' is configured/);
    assert.deepEqual(companyOf(input.orderId), []);
  });

  it('an invalid account id is refused by the contract, naming the field', async () => {
    await assert.rejects(
      book({ ...bookingInput('instant'), supplier: 'EU West' } as BookRoomInput),
      /supplier/,
    );
  });

  it('a disabled account refuses new orders while its running orders are polled and cancelled', async () => {
    // Two orders on us wait for confirmation; then the fleet restarts with us disabled.
    const waiting = bookingInput('confirm-after-polls', {
      supplier: 'us',
      param: 10,
      polling: { initialInterval: '200ms', maximumInterval: '200ms', backoffCoefficient: 1 },
    });
    const toCancel = bookingInput('pending-long', { supplier: 'us' });
    await bookings.startBooking(waiting);
    await bookings.startBooking(toCancel);
    await eventually(
      async () => (await bookings.state(toCancel.orderId)).phase === 'AWAITING_CONFIRMATION',
      30_000,
      'the order on us waits for confirmation',
    );
    await stopMain();
    await startMain(ACCOUNTS.map((a) => (a.id === 'us' ? { ...a, enabled: false } : a)));

    const refused = bookingInput('instant', { supplier: 'us' });
    const r = await book(refused);
    assert.equal(r.outcome, 'FAILED');
    assert.equal(r.error?.code, 'SUPPLIER_ACCOUNT_DISABLED');
    assert.deepEqual(companyOf(refused.orderId), []);

    assert.equal((await bookings.result(waiting.orderId)).outcome, 'CONFIRMED');
    await bookings.cancelOrder(toCancel.orderId, { reason: 'us is closing' });
    const cancelled = await bookings.result(toCancel.orderId);
    assert.equal(cancelled.outcome, 'CANCELLED', cancelled.reason);
    assert.deepEqual(companyOf(toCancel.orderId), [US.key]);

    await stopMain();
    await startMain(ACCOUNTS);
  });

  it('an account that hangs holds only its own slots: another account books meanwhile', async () => {
    // Ten orders on the hanging account: its two slots are held by reads that hang for 15 s.
    const hung = Array.from({ length: 10 }, () => bookingInput('instant', { supplier: 'hang' }));
    for (const input of hung) await bookings.startBooking(input);
    await eventually(
      async () => accountWorkers[2]!.worker.getStatus().numInFlightActivities === 2,
      10_000,
      'the hanging account has its slots full',
    );
    const hungReads = hanging.accepted();
    // Orders through eu decide while those two reads still hang: none of them ended (a read that
    // times out is retried on a new connection), so no eu call waited for a slot of theirs.
    const results = await Promise.all(
      Array.from({ length: 5 }, () => book(bookingInput('instant', { supplier: 'eu' }))),
    );
    for (const r of results) assert.equal(r.outcome, 'CONFIRMED', r.reason);
    assert.equal(hanging.accepted(), hungReads, 'a hanging read ended before the eu orders did');
    assert.equal(accountWorkers[2]!.worker.getStatus().numInFlightActivities, 2);
    for (const input of hung) await bookings.cancelOrder(input.orderId, { reason: 'test over' });
  });

  it('a caller that never heard of accounts (the plain Temporal client) books through the default account', async () => {
    const input = bookingInput('instant');
    const handle = await temporal.client.workflow.start('bookRoom', {
      args: [input],
      workflowId: bookingWorkflowId(input.orderId),
      taskQueue,
    });
    // The order's workflow goes on after CONFIRMED (its guard): the decision is the update's answer.
    const result = (await handle.executeUpdate(outcomeUpdate)) as { outcome: string };
    assert.equal(result.outcome, 'CONFIRMED');
    assert.deepEqual(companyOf(input.orderId), [COMPANY.key]);
  });
});
