import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Pool } from 'undici';
import { sign } from '../../src/hotel-api/signing';
import { SCENARIO_NAMES, scenarioOptionId, type ScenarioName } from '../../tools/simulator';
import type { TestSim } from './helpers';
import { ACME, bookScenario, bookingBody, priceCheck, startSim } from './helpers';

/** Runs per property; FUZZ_RUNS scales them (e.g. 20000 for a long soak). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const RAW_RUNS = Math.max(100, Math.round(RUNS / 10));

const KNOWN_PATHS = [
  '/api/v1/properties/availability',
  '/api/v1/properties/content/',
  '/api/v1/properties/content',
  '/api/v1/properties/content/1001',
  '/api/v1/properties/content/1008',
  '/api/v1/static_content_reference_list',
  '/api/v1/price-check',
  '/api/v1/booking',
  '/api/v1/cancel',
  '/api/v1/retrieve',
  '/__sim/bookings',
  '/',
];
const PARAM_NAMES = [
  'checkin',
  'checkout',
  'property_id',
  'occupancy',
  'country_code',
  'language_code',
  'language',
  'page',
  'option_id',
  'booking_id',
];
/** Scenarios whose 5xx, lost answers or long delays are deliberate are left out of the fuzz. */
const DELIBERATE_FAULTS: ReadonlySet<ScenarioName> = new Set([
  'price-check-5xx',
  'booking-5xx',
  'booking-lost',
  'booking-slow',
]);
const SAFE_SCENARIOS = SCENARIO_NAMES.filter((name) => !DELIBERATE_FAULTS.has(name));

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

describe('Robustness', () => {
  let t: TestSim;
  let pool: Pool;
  const tokens: string[] = [];
  const bookingIds: string[] = [];
  before(async () => {
    // Inspection off: random POSTs must not reach the control routes and change faults.
    t = await startSim({ inspection: false });
    pool = new Pool(t.origin, { connections: 8 });
    for (const s of SAFE_SCENARIOS.slice(0, 6)) {
      const check = await priceCheck(t, scenarioOptionId(s));
      tokens.push(check.body.booking_id as string);
      const b = await bookScenario(t, s);
      if (b.reply.status === 201) bookingIds.push(String(b.reply.body.booking_id));
    }
  });
  after(async () => {
    await pool.close();
    await t.close();
  });

  it('never answers 5xx to thousands of random requests over HTTP and keeps serving', async () => {
    const value = fc.oneof(
      printable,
      fc.string({ maxLength: 30 }),
      fc.integer().map(String),
      fc.constantFrom(
        '2026-06-01',
        '2026-06-03',
        '2026-02-30',
        '2',
        '2-5,7',
        '1,2',
        'IT',
        'it',
        'en',
        '0',
        '-1',
        '1e3',
        '',
      ),
      fc.constantFrom(...SAFE_SCENARIOS).map((s) => scenarioOptionId(s)),
      fc.nat().map((i) => tokens[i % Math.max(1, tokens.length)] ?? 'bk_1_0'),
      fc.nat().map((i) => bookingIds[i % Math.max(1, bookingIds.length)] ?? '1'),
    );
    const query = fc.array(
      fc.tuple(
        fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...PARAM_NAMES) }, printable),
        value,
      ),
      { maxLength: 8 },
    );
    const method = fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS');
    const routes: readonly [string, string][] = [
      ['GET', '/api/v1/properties/availability'],
      ['GET', '/api/v1/properties/content/'],
      ['GET', '/api/v1/properties/content/1001'],
      ['GET', '/api/v1/static_content_reference_list'],
      ['GET', '/api/v1/price-check'],
      ['POST', '/api/v1/booking'],
      ['DELETE', '/api/v1/cancel'],
      ['GET', '/api/v1/retrieve'],
    ];
    const methodAndPath = fc.oneof(
      // Mostly the right method on a real route, so the requests reach validation and handlers.
      { weight: 8, arbitrary: fc.constantFrom(...routes) },
      fc.tuple(method, fc.constantFrom(...KNOWN_PATHS)),
      fc
        .tuple(method, fc.constantFrom(...KNOWN_PATHS), fc.string({ maxLength: 20 }))
        .map(([m, p, s]): [string, string] => [m, `${p}/${encodeURIComponent(s)}`]),
      fc.tuple(
        method,
        fc.constantFrom(
          '/api/v1/properties/content/%zz',
          '/api/v1/%C0%AF',
          '/api/v1/properties/content/%F0%9F%98%80',
          '//api/v1//booking',
          '/api/v1/properties/content/1%2F2',
          '/api/v1/properties/content/-1',
          '/api/v1/properties/content/99999999999999999999',
        ),
      ),
    );
    const auth = fc.oneof(
      { weight: 6, arbitrary: fc.constant<'signed'>('signed') },
      fc.constant<'none'>('none'),
      printable,
      fc
        .integer({ min: -1_000_000, max: 1_000_000 })
        .map((skew) => sign(ACME, Date.now() + skew * 1000)),
      fc
        .string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 64 })
        .map(
          (h) => `API-Key=${ACME.key},Signature=${h},Timestamp=${Math.floor(Date.now() / 1000)}`,
        ),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
      fc.json({ maxDepth: 3 }),
      fc
        .record(
          {
            room_detail: fc.oneof(
              fc.array(
                fc.record(
                  {
                    lead_first_name: fc.anything(),
                    lead_last_name: fc.anything(),
                    notes: fc.anything(),
                  },
                  { requiredKeys: [] },
                ),
                { maxLength: 3 },
              ),
              fc.anything(),
            ),
            phone_number_prefix: fc.oneof(fc.string(), fc.anything()),
            phone_number: fc.oneof(fc.string(), fc.anything()),
            email: fc.oneof(fc.emailAddress(), fc.string(), fc.anything()),
            custom_fields: fc.oneof(
              fc.dictionary(fc.string({ maxLength: 16 }), fc.oneof(fc.string(), fc.anything()), {
                maxKeys: 12,
              }),
              fc.string(),
              fc.anything(),
            ),
          },
          { requiredKeys: [] },
        )
        .map((o) => JSON.stringify(o)),
      fc.constant(JSON.stringify(bookingBody())),
    );
    const contentType = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/problem+json; charset=utf-8',
      ),
      printable,
    );

    let runs = 0;
    const statusCounts = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        methodAndPath,
        query,
        auth,
        body,
        contentType,
        async ([m, p], q, a, b, ct) => {
          runs += 1;
          const qs = q
            .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
            .join('&');
          const headers: Record<string, string> = {};
          if (a === 'signed') headers.authorization = sign(ACME, Date.now());
          else if (a !== 'none') headers.authorization = a;
          if (ct !== undefined) headers['content-type'] = ct;
          const res = await pool.request({
            method: m as 'GET',
            path: qs === '' ? p : `${p}?${qs}`,
            headers,
            ...(b === undefined || m === 'GET' || m === 'HEAD' ? {} : { body: b }),
          });
          const text = await res.body.text();
          statusCounts.set(res.statusCode, (statusCounts.get(res.statusCode) ?? 0) + 1);
          assert.ok(res.statusCode < 500, `${m} ${p}?${qs} answered ${res.statusCode}: ${text}`);
          if (text.length > 0) JSON.parse(text);
          assert.equal(typeof res.headers['x-request-id'], 'string');
        },
      ),
      { numRuns: RUNS },
    );
    console.log(
      `fast-check: ${runs} random HTTP requests, statuses ${JSON.stringify(Object.fromEntries([...statusCounts].sort()))}`,
    );
    assert.equal(runs, RUNS);
    assert.equal((await t.get('/static_content_reference_list?language=en')).status, 200);
    assert.equal(t.sim.requests().internalErrors, 0);
  });

  it('survives random bytes on raw connections and still answers', async () => {
    const port = Number(new URL(t.origin).port);
    const rawRequest = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 600 }).map((b) => Buffer.from(b)),
      fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'BREW', 'G\u00e9T', ''),
          printable,
          fc.array(fc.tuple(printable, fc.string({ maxLength: 40 })), { maxLength: 5 }),
          fc.string({ maxLength: 80 }),
        )
        .map(([m, target, hs, rest]) =>
          Buffer.from(
            `${m} /api/v1/${target} HTTP/1.1\r\nHost: x\r\n${hs.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${rest}`,
            'utf8',
          ),
        ),
    );
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(rawRequest, async (bytes) => {
        runs += 1;
        const answer = await new Promise<string>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          let got = '';
          const timer = setTimeout(() => socket.destroy(), 1_000);
          socket.on('data', (d) => (got += d.toString('latin1')));
          socket.on('error', () => undefined);
          socket.on('close', () => {
            clearTimeout(timer);
            resolve(got);
          });
          socket.end(bytes);
        });
        assert.ok(!/^HTTP\/1\.[01] 5/.test(answer), answer.slice(0, 200));
      }),
      { numRuns: RAW_RUNS },
    );
    console.log(`fast-check: ${runs} random raw byte streams`);
    assert.equal((await t.get('/static_content_reference_list?language=en')).status, 200);
  });

  it('answers oversized headers with 431 and keeps serving', async () => {
    const port = Number(new URL(t.origin).port);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let got = '';
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(got));
      socket.end(
        `GET /api/v1/retrieve?booking_id=1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
      );
    });
    assert.match(answer, /^HTTP\/1\.1 431/);
    assert.match(answer, /\r\nx-request-id: sim-\w+\r\n/);
    assert.match(answer, /\r\ndate: \w{3}, /);
    assert.equal((await t.get('/static_content_reference_list?language=en')).status, 200);
  });
});

describe('Robustness of the control routes', () => {
  it('never answers 5xx to random control requests', async () => {
    const t = await startSim();
    try {
      const routes = [
        '/__sim/faults',
        '/__sim/company-faults',
        '/__sim/companies',
        '/__sim/clock',
        '/__sim/properties/1001/deactivate',
        '/__sim/properties/x/activate',
        '/__sim/bookings',
        '/__sim/requests',
        '/__sim/state',
        '/__sim',
      ];
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('GET', 'POST', 'DELETE'),
          fc.constantFrom(...routes),
          fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ maxLength: 50 })),
          async (method, route, body) => {
            runs += 1;
            const r = await t.call(method, route, {
              as: null,
              ...(method === 'GET'
                ? {}
                : { body, headers: { 'content-type': 'application/json' } }),
            });
            assert.ok(r.status < 500, `${method} ${route} ${body} answered ${r.status} ${r.text}`);
          },
        ),
        { numRuns: Math.round(RUNS / 6) },
      );
      console.log(`fast-check: ${runs} random control requests`);
      t.sim.reset();
      assert.equal((await t.get('/static_content_reference_list?language=en')).status, 200);
      assert.equal(t.sim.requests().internalErrors, 0);
    } finally {
      await t.close();
    }
  });
});
