/**
 * The defects the `order-event-endpoints` campaign found (tools/fuzz/order-event-endpoints.ts),
 * each a test named for its input: the receiver's answer, played by the campaign's hostile
 * receiver on loopback to the product's own POST, and a whole delivery through the endpoint's
 * delivery workflow on the run's Temporal server.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createOrderEventsWorker } from '../../src/build-worker';
import { createOrderEventActivities } from '../../src/order-events/activities';
import { DIRECT_DELIVERY_TIMEOUT_MS } from '../../src/order-events/activities/direct';
import { signedPoster, type PostAnswer } from '../../src/order-events/activities/post';
import { endpointDeliveryWorkflowId } from '../../src/order-events/contract/delivery';
import type { Answer } from '../../tools/fuzz/order-event-answers';
import {
  eventOf,
  inActivity,
  SECRET,
  startHostileReceiver,
  type HostileReceiver,
} from '../../tools/fuzz/order-event-receiver';
import {
  connectTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
let orders = 0;

/** The direct POST of a new event answered `answer`, with how long it took (or 'none' by 8 s). */
async function directPost(r: HostileReceiver, answer: Answer, collect = false) {
  const event = eventOf(`fuzz-regression-${++orders}`, 1);
  r.script(event.id, [answer]);
  const post = signedPoster({ url: r.urlFor(answer), secret: SECRET });
  const env = new MockActivityEnvironment({}, { logger: quiet });
  // A garbage collection every 50 ms, as a worker busy with other answers has them.
  const collecting = collect ? setInterval(gc, 50) : undefined;
  const started = Date.now();
  let watchdog: NodeJS.Timeout | undefined;
  try {
    const got = await Promise.race<PostAnswer | 'none'>([
      inActivity(env, () => post(event, DIRECT_DELIVERY_TIMEOUT_MS)),
      new Promise((done) => (watchdog = setTimeout(() => done('none'), 8_000))),
    ]);
    return { got, took: Date.now() - started };
  } finally {
    clearInterval(collecting);
    clearTimeout(watchdog);
  }
}

describe('order-event endpoints: the POST', () => {
  let r: HostileReceiver;
  before(async () => (r = await startHostileReceiver()));
  after(() => r.close());

  it('{"k":"hang"}: an endpoint that never answers, garbage collected meanwhile: no answer at the timeout', async () => {
    const { got, took } = await directPost(r, { k: 'hang' }, true);
    if (got === 'none') return assert.fail('no result within 8 s');
    assert.ok(took < DIRECT_DELIVERY_TIMEOUT_MS + 1_000, `a result after ${took} ms`);
    assert.equal(got.delivered, false);
    assert.match(got.delivered ? '' : got.failure, /^no answer from the order system \(\w+\)$/);
  });

  it('{"k":"trickle","status":501,"head":false}: a body 1 byte a second, garbage collected meanwhile: HTTP 501 by the timeout', async () => {
    const { got, took } = await directPost(r, { k: 'trickle', status: 501, head: false }, true);
    if (got === 'none') return assert.fail('no result within 8 s');
    assert.ok(took < DIRECT_DELIVERY_TIMEOUT_MS + 1_000, `a result after ${took} ms`);
    assert.deepEqual(got, {
      delivered: false,
      status: 501,
      failure: 'the order system answered HTTP 501',
    });
  });

  it('{"k":"final","status":204,"interim":100}: a 100 Continue before the 204: delivered', async () => {
    const { got } = await directPost(r, { k: 'final', status: 204, head: '', interim: 100 });
    assert.deepEqual(got, { delivered: true, status: 204 });
  });

  it('{"k":"final","status":404,"interim":100}: a 100 Continue before the 404: HTTP 404', async () => {
    const { got } = await directPost(r, { k: 'final', status: 404, head: '', interim: 100 });
    assert.deepEqual(got, {
      delivered: false,
      status: 404,
      failure: 'the order system answered HTTP 404',
    });
  });
});

describe('order-event endpoints: a round', () => {
  it('twelve orders side by side to an endpoint that answers slowly: no listener-leak warning', async () => {
    const server = createServer((_req, res) => {
      setTimeout(() => res.writeHead(204).end(), 300);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const endpoint = { url: `http://127.0.0.1:${port}/events`, secret: SECRET };
      const { deliverOrderEventRound } = createOrderEventActivities(endpoint);
      const round = Array.from({ length: 12 }, (_, i) => {
        const orderId = `fuzz-round-${++orders}-${i}`;
        return { orderId, events: [eventOf(orderId, 1)] };
      });
      const env = new MockActivityEnvironment({}, { logger: quiet });
      // A worker's activity has a listener of the SDK's own on this signal; the mock has none.
      env.context.cancellationSignal.addEventListener('abort', () => undefined);
      const results = await inActivity(env, () => deliverOrderEventRound(round));
      assert.deepEqual(
        results.map((r) => r.delivered),
        round.map(() => 1),
      );
      await new Promise((done) => setImmediate(done));
      assert.deepEqual(
        warnings.filter((w) => /MaxListeners/.test(w)),
        [],
      );
    } finally {
      process.off('warning', onWarning);
      await new Promise((done) => server.close(done));
    }
  });
});

describe('order-event endpoints: a whole delivery', () => {
  let r: HostileReceiver;
  let t: TestTemporal;
  before(async () => {
    r = await startHostileReceiver();
    t = await connectTemporal();
  });
  after(async () => {
    await r?.close();
    await t?.close();
  });

  it('[503, 100 Continue then 242]: delivered at its second attempt in a round, never sent again', async () => {
    const taskQueue = uniqueTaskQueue('fuzz-order-events');
    const endpoint = { url: r.urlFor({ k: 'hang' }), secret: SECRET };
    const worker = await createOrderEventsWorker({
      connection: t.nativeConnection,
      taskQueue,
      endpoint,
      workflowBundle: await testWorkflowBundle(),
      dataConverter: testDataConverter,
      shutdownGraceTime: '2s',
    });
    const event = eventOf(`fuzz-regression-${++orders}`, 1);
    r.script(event.id, [
      { k: 'final', status: 503, head: '' },
      { k: 'final', status: 242, head: '', interim: 100 },
    ]);
    const handle = t.client.workflow.getHandle(endpointDeliveryWorkflowId(taskQueue));
    await worker.runUntil(async () => {
      const env = new MockActivityEnvironment({ taskQueue }, { client: t.client, logger: quiet });
      const { announceOrderEvent } = createOrderEventActivities(endpoint);
      // Not the order's first event: it goes to the endpoint's delivery, whose round sends it.
      const announced = await inActivity(env, () =>
        announceOrderEvent(event, { checkOverflow: true }),
      );
      assert.deepEqual(announced, { delivered: 'queued' });
      // It closes once it holds nothing: the event delivered, its round over.
      const closed = await Promise.race([
        handle.result().then(() => true),
        new Promise<false>((done) => setTimeout(() => done(false), 20_000)),
      ]);
      assert.ok(closed, "the endpoint's delivery still holds the event after 20 s");
    });
    await handle.terminate().catch(() => undefined);
    assert.deepEqual(
      r.attempts(event.id).map((a) => a.answer.k === 'final' && a.answer.status),
      [503, 242],
    );
    const history = await handle.fetchHistory();
    assert.equal(history.events?.filter((e) => e.workflowTaskFailedEventAttributes).length, 0);
  });
});
