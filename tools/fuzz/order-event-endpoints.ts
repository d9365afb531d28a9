/**
 * Order-event endpoints, fuzzed: the receivers' answers to our webhook POSTs. A hostile receiver
 * on loopback (order-event-receiver.ts) answers each signed POST of an event with a seeded hostile
 * answer (order-event-answers.ts): redirects, every status class and 600-999, a 1xx before the
 * final answer, huge and trickling answers, garbage heads, a connection cut before or mid answer,
 * a TLS handshake refused. The POST is the product's, built as production builds it: the direct
 * POST (`signedPoster`, 1 s, as the seam's direct route calls it) or the overflow's activity
 * (`deliverOrderEvent`, 10 s). The documented result (docs/order-events.md, "What counts as an
 * answer"): delivered on a 2xx, whatever follows its head; a failed attempt naming the status
 * otherwise, no redirect followed; no answer when nothing HTTP came; a result within the timeout,
 * the heap bounded whatever the answer's size, a typed failure, never the secret or the body in a
 * failure or a log line. Then a few whole deliveries through real Temporal
 * (order-event-deliveries.ts): count/100 orders, at most 8.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createOrderEventActivities } from '../../src/order-events/activities';
import { DIRECT_DELIVERY_TIMEOUT_MS } from '../../src/order-events/activities/direct';
import { signedPoster } from '../../src/order-events/activities/post';
import { DELIVERY_TIMEOUT_MS } from '../../src/order-events/activities/rounds';
import type { OrderEvent } from '../../src/order-events/contract/event';
import { defect, tally, type CampaignOptions, type Surface, type Tally } from './campaign';
import { anyAnswer, expected, type Answer } from './order-event-answers';
import { SETTLE_MS, wholeDeliveries } from './order-event-deliveries';
import {
  eventOf,
  inActivity,
  leakLog,
  leaky,
  SECRET,
  startHostileReceiver,
  type HostileReceiver,
} from './order-event-receiver';

/** How late a POST's result may come after its timeout, on two busy cores. */
const MARGIN_MS = 2_000;
/**
 * How much of a huge answer (10 MB or more) may go out to the client: what it reads (64 KB) and
 * what loopback's socket buffers hold. More, and the client read what it should have dropped.
 */
const TAKEN_BOUND = 8 * 1024 * 1024;
/** Heap growth over the whole run, garbage collected, that says answers are kept. */
const HEAP_BOUND = 64 * 1024 * 1024;
/** POSTs in flight at once: most answers take no time, trickles and silences take the timeout. */
const IN_FLIGHT = 32;

/** What came of one POST: its answer, or (the overflow's activity) its typed failure. */
interface Result {
  readonly delivered: boolean;
  readonly status?: number;
  readonly failure?: string;
  readonly type?: string;
}

/** One worker's POSTs per endpoint, as production has them: connections kept between POSTs. */
type Posters = Map<
  string,
  { direct: ReturnType<typeof signedPoster> } & ReturnType<typeof createOrderEventActivities>
>;

async function post(
  posters: Posters,
  r: HostileReceiver,
  env: MockActivityEnvironment,
  a: Answer,
  e: OrderEvent,
  overflow: boolean,
): Promise<Result> {
  const url = r.urlFor(a);
  if (!posters.has(url)) {
    const endpoint = { url, secret: SECRET };
    posters.set(url, { direct: signedPoster(endpoint), ...createOrderEventActivities(endpoint) });
  }
  const { direct, deliverOrderEvent } = posters.get(url)!;
  if (!overflow) return inActivity(env, () => direct(e, DIRECT_DELIVERY_TIMEOUT_MS));
  try {
    const { status } = await inActivity(env, () => deliverOrderEvent(e));
    return { delivered: true, status };
  } catch (err) {
    if (!(err instanceof ApplicationFailure)) throw err;
    const type = err.type ?? '';
    const status = /^HTTP_(\d+)$/.exec(type)?.[1];
    const failure = err.message;
    return { delivered: false, failure, type, ...(status ? { status: Number(status) } : {}) };
  }
}

/** Whether `got` is what the docs give for `a`. */
function documented(a: Answer, got: Result): boolean {
  const want = expected(a);
  if (want === 'delivered') return got.delivered;
  if (got.delivered) return false;
  const type = got.status === undefined ? 'NO_ANSWER' : `HTTP_${got.status}`;
  if (got.type !== undefined && got.type !== type) return false;
  if (want === 'no answer') return got.status === undefined && /^no answer /.test(got.failure!);
  return got.status === want && got.failure === `the order system answered HTTP ${want}`;
}

/** Input `i`: one POST answered `a`, judged. */
async function onePost(
  t: Tally,
  r: HostileReceiver,
  env: MockActivityEnvironment,
  input: { i: number; a: Answer; overflow: boolean; posters: Posters },
): Promise<void> {
  const { a, overflow } = input;
  const event = eventOf(`fuzz-oe-${input.i}`, 1);
  r.script(event.id, [a]);
  const what = `${overflow ? 'overflow' : 'direct'} POST answered ${JSON.stringify(a).slice(0, 200)}`;
  const limit = (overflow ? DELIVERY_TIMEOUT_MS : DIRECT_DELIVERY_TIMEOUT_MS) + MARGIN_MS;
  let watchdog: NodeJS.Timeout | undefined;
  const late = new Promise<'none'>((done) => (watchdog = setTimeout(() => done('none'), limit)));
  let got: Result | 'none';
  try {
    got = await Promise.race([post(input.posters, r, env, a, event, overflow), late]);
  } catch (err) {
    return defect(t, 'crashes', what, `an untyped throw: ${String(err).slice(0, 200)}`);
  } finally {
    clearTimeout(watchdog);
  }
  if (got === 'none') return defect(t, 'stuck', what, `no result ${limit} ms on`);
  if (!documented(a, got))
    defect(t, 'unclear', what, `got ${JSON.stringify(got)}, documented ${expected(a)}`);
  if (r.strays().has(event.id)) defect(t, 'unclear', what, 'a redirect was followed');
  if (leaky(got.failure ?? '')) defect(t, 'leaks', what, `the failure: ${got.failure}`);
  const taken = r.written(event.id);
  if (taken > TAKEN_BOUND)
    defect(t, 'crashes', what, `${taken >> 20} MB of it read: memory unbounded`);
}

/** `count` POSTs, {@link IN_FLIGHT} at a time, until `until`. */
async function posts(t: Tally, r: HostileReceiver, options: CampaignOptions, count: number) {
  const inputs = fc.sample(fc.tuple(anyAnswer, fc.nat(3)), { seed: options.seed, numRuns: count });
  const posters: Posters = new Map();
  let next = 0;
  const lane = async () => {
    // A context of its own, as each activity has.
    const env = new MockActivityEnvironment({}, { logger: leakLog(t) });
    while (next < inputs.length && Date.now() < options.until) {
      const i = next++;
      const [a, pick] = inputs[i]!;
      t.inputs += 1;
      await onePost(t, r, env, { i, a, overflow: pick === 0, posters });
    }
  };
  // Garbage collected as often as a busy worker is: a deadline must survive it.
  const collecting = setInterval(gc, 500);
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  } finally {
    clearInterval(collecting);
  }
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * The POSTs beside `orders` whole deliveries, the heap measured from when the Temporal worker is
 * up (the SDK keeps what it loads) to the end.
 */
async function runBoth(t: Tally, r: HostileReceiver, options: CampaignOptions, orders: number) {
  let ready = () => undefined as void;
  const up = new Promise<void>((done) => (ready = done));
  const deliveries = orders > 0 ? wholeDeliveries(t, r, options.seed, orders, ready) : undefined;
  await Promise.race([up, deliveries ?? Promise.resolve()]);
  const heapBase = heapAfterGc();
  await Promise.all([posts(t, r, options, options.count - orders), deliveries]);
  const grew = heapAfterGc() - heapBase;
  if (grew > HEAP_BOUND) defect(t, 'crashes', 'the campaign', `the heap kept ${grew >> 20} MB`);
}

export const orderEventEndpointsSurface: Surface = {
  name: 'order-event-endpoints',
  async run(options: CampaignOptions) {
    const t = tally('order-event-endpoints', { workflows: true, bookings: true });
    // Whole deliveries when they have the time to settle: count/100 orders, 1 to 8.
    const enough = options.until - Date.now() > SETTLE_MS + 15_000;
    const orders = enough ? Math.min(8, Math.max(1, Math.floor(options.count / 100))) : 0;
    const crashed = (err: unknown) =>
      defect(t, 'crashes', 'the campaign', `unhandled: ${String(err).slice(0, 200)}`);
    process.on('unhandledRejection', crashed).on('uncaughtException', crashed);
    const r = await startHostileReceiver();
    try {
      await runBoth(t, r, options, Math.max(0, Math.min(orders, options.count - 1)));
    } finally {
      process.off('unhandledRejection', crashed).off('uncaughtException', crashed);
      await r.close();
    }
    return t;
  },
};
