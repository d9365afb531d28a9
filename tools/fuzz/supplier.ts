/**
 * Supplier answers, fuzzed: the simulator's hostile mode (tools/simulator/hostile.ts) spoils one
 * answer per input (endpoint × hostile kind × seed), and the product's own hotel API client, built
 * from the worker's configuration (its timeouts, its response cap), calls the simulator over
 * loopback. Each call is judged by supplier-checks.ts, within its deadline and a margin; an answer
 * over the size cap must also leave memory bounded (refused, not buffered). A few whole orders run
 * first, through Temporal, with their booking answer spoiled (supplier-orders.ts).
 */
import fc from 'fast-check';
import { HotelApiClient } from '../../src/hotel-api';
import { createWorkerMetrics } from '../../src/observability/metrics';
import { DEFAULT_MAX_RESPONSE_BYTES as CAP } from '../../src/hotel-api/client';
import {
  buildSimulator,
  DEFAULT_PROPERTY_ID,
  ENDPOINTS,
  HOSTILE_KINDS,
  type EndpointName,
  type Simulator,
} from '../simulator';
import { scenarioOptionId } from '../simulator/scenarios';
import { defect, tally, type CampaignOptions, type Surface, type Tally } from './campaign';
import {
  FUZZ_COMPANY,
  fuzzConfig,
  GUEST,
  judge,
  leaked,
  type Input,
  type Settled,
} from './supplier-checks';
import { runOrders } from './supplier-orders';

/** How long after its deadline a call may still settle before it counts as stuck. */
const MARGIN_MS = 1_000;
/** Calls in flight at once, each on a simulator of its own (trickles mostly wait). */
const LANES = 16;
/**
 * Memory the process may grow by while a huge answer is refused, beyond the cap the client reads
 * up to (other lanes allocate meanwhile). The largest hostile body is 32 MiB: held whole, it shows.
 */
const MEMORY_SLACK = 14 * 1024 * 1024;
/** Whole orders: one per hundred inputs, at most this many. */
const MAX_ORDERS = 24;

interface Lane {
  readonly sim: Simulator;
  readonly client: HotelApiClient;
  readonly timeouts: { bookingMs: number; readMs: number; searchMs: number };
  bookingId?: number;
}

const BOOKING_BODY = {
  room_detail: [{ lead_first_name: GUEST.firstName, lead_last_name: GUEST.lastName }],
  phone_number_prefix: '+39',
  phone_number: GUEST.phone,
  email: GUEST.email,
};

async function book(c: HotelApiClient) {
  const pc = await c.priceCheck({ optionId: scenarioOptionId('instant') });
  return () => c.createBooking({ optionId: pc.booking_id ?? '', body: BOOKING_BODY });
}

/** The call an input spoils, set up first (a token, a booking) with nothing spoiled. */
async function prepare(lane: Lane, endpoint: EndpointName): Promise<() => Promise<unknown>> {
  const c = lane.client;
  switch (endpoint) {
    case 'availability': {
      const propertyIds = [DEFAULT_PROPERTY_ID, DEFAULT_PROPERTY_ID + 1];
      const q = { checkin: '2031-05-10', checkout: '2031-05-12', propertyIds, occupancy: ['2'] };
      return () => c.availability(q);
    }
    case 'content-list':
      return () => c.listProperties({ countryCode: 'IT' });
    case 'content-detail':
      return () => c.getProperty({ hotelId: DEFAULT_PROPERTY_ID });
    case 'reference-list':
      return () => c.staticReferenceList({ language: 'en' });
    case 'price-check':
      return () => c.priceCheck({ optionId: scenarioOptionId('instant') });
    case 'booking':
      return book(c);
    case 'retrieve':
    case 'cancel': {
      const bookingId = (lane.bookingId ??= (await (await book(c))()).booking_id);
      return endpoint === 'retrieve'
        ? () => c.retrieveBooking({ bookingId })
        : () => c.cancelBooking({ bookingId });
    }
  }
}

function settle(call: () => Promise<unknown>, deadlineMs: number): Promise<Settled> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('stuck'), deadlineMs);
    const done = (s: Settled) => {
      clearTimeout(timer);
      resolve(s);
    };
    call().then(
      (value) => done({ value }),
      (error: unknown) => done({ error }),
    );
  });
}

/** Runs `call` while sampling memory (heap and buffers): its peak growth over the start. */
async function withPeak(call: () => Promise<Settled>): Promise<[Settled, number]> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const start = used();
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, used())), 2);
  try {
    return [await call(), peak - start];
  } finally {
    clearInterval(sampler);
  }
}

const deadlineOf = ({ timeouts }: Lane, endpoint: EndpointName) =>
  MARGIN_MS +
  (endpoint === 'booking'
    ? timeouts.bookingMs
    : endpoint === 'availability'
      ? timeouts.searchMs
      : timeouts.readMs);

/** One input on one lane; huge answers one at a time, so that the memory measured is theirs. */
async function tryInput(t: Tally, lane: Lane, input: Input, huge: { turn: Promise<void> }) {
  const call = await prepare(lane, input.endpoint);
  const { endpoint, kind, seed } = input;
  lane.sim.addHostileRule({ endpoint, kind, seed, times: 1 });
  const deadline = deadlineOf(lane, endpoint);
  const judged = () => ({
    input,
    applied: lane.sim.hostileApplied().last.at(-1),
    bookingId: lane.bookingId,
  });
  if (kind !== 'huge-body') {
    const settled = await settle(call, deadline);
    return judge(t, judged(), settled);
  }
  const before = huge.turn;
  let done = (): void => undefined;
  huge.turn = new Promise<void>((r) => (done = r));
  await before;
  try {
    const [settled, peak] = await withPeak(() => settle(call, deadline));
    judge(t, judged(), settled);
    if (peak > CAP + MEMORY_SLACK)
      defect(t, 'crashes', `${endpoint} × huge-body × seed ${seed}`, `memory grew ${peak} bytes`);
  } finally {
    done();
  }
}

/** The worker's own metrics, fed by every lane's calls: their labels are read after the run. */
const metrics = createWorkerMetrics({ defaultMetrics: false });

async function openLane(): Promise<Lane> {
  const sim = buildSimulator({ companies: [FUZZ_COMPANY], seed: 7 });
  const { origin } = await sim.listen(0, '127.0.0.1');
  const config = fuzzConfig(origin).hotelApi;
  const client = new HotelApiClient(config, { onCall: metrics.recordSupplierCall });
  return { sim, client, timeouts: config.timeouts };
}

/** A secret or a guest's datum in a metric's labels (the exposition the worker serves). */
async function metricLeaks(t: Tally): Promise<void> {
  const what = leaked(await metrics.registry.metrics());
  if (what) defect(t, 'leaks', 'the supplier calls, as metrics', `${what} in a metric label`);
}

/** Every input on the lanes, each lane taking the next until none is left or time is up. */
async function tryAll(t: Tally, inputs: readonly Input[], until: number): Promise<void> {
  const lanes = await Promise.all(Array.from({ length: LANES }, openLane));
  const huge = { turn: Promise.resolve() };
  let next = 0;
  try {
    await Promise.all(
      lanes.map(async (lane) => {
        for (let i = next++; i < inputs.length && Date.now() < until; i = next++) {
          const input = inputs[i]!;
          t.inputs += 1;
          await tryInput(t, lane, input, huge).catch((err: unknown) =>
            defect(t, 'crashes', `${input.endpoint} × ${input.kind}`, `set-up: ${String(err)}`),
          );
          lane.sim.addHostileRule(null);
        }
      }),
    );
  } finally {
    await Promise.all(lanes.map(async (l) => (await l.client.close(), await l.sim.close())));
  }
}

export const supplierSurface: Surface = {
  name: 'supplier',
  async run({ seed, count, until }: CampaignOptions) {
    const t = tally('supplier', { workflows: true, bookings: true });
    const orders = Math.min(MAX_ORDERS, Math.floor(count / 100));
    const inputs = fc.sample(
      fc.record({
        endpoint: fc.constantFrom(...ENDPOINTS),
        kind: fc.constantFrom(...HOSTILE_KINDS),
        seed: fc.nat(),
      }),
      { seed, numRuns: count - orders },
    );
    const onCrash = (err: unknown) => defect(t, 'crashes', 'supplier', `uncaught: ${String(err)}`);
    process.on('unhandledRejection', onCrash);
    try {
      if (orders > 0) await runOrders(t, { seed, orders, until });
      await tryAll(t, inputs, until);
      await metricLeaks(t);
    } finally {
      process.off('unhandledRejection', onCrash);
    }
    return t;
  },
};
