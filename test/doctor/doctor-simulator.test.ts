/**
 * The doctor against the real simulator over HTTP, in-process: the plain simulator passes with
 * nothing to report, each deviation the simulator can play is reported by the check that names
 * it (and only by it), a test booking is left cancelled, and a supplier that cannot be reached
 * or refuses our credentials ends the run with exit 2.
 */
import assert from 'node:assert/strict';
import { BOOK_CHECKS } from '../../src/doctor/check-result';
import { describe, it } from 'node:test';
import type { HotelApiConfig } from '../../src/hotel-api/client';
import type { DoctorOptions, DoctorReport } from '../../src/doctor/run-doctor';
import { runDoctor } from '../../src/doctor/run-doctor';
import {
  DEMO_COMPANY,
  buildSimulator,
  scenarioOptionId,
  type Simulator,
  type SimulatorOptions,
} from '../../tools/simulator';
import { freePort } from '../../tools/temporal-server/dev-server';
import { makeCertificates } from '../../tools/temporal-server/certificates';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

const INACTIVE = { key: 'inactive-key', secret: 'inactive-secret', active: false };
const STAY = { checkin: '2030-05-10', checkout: '2030-05-12', occupancy: ['2'] };

const hotelApi = (baseUrl: string, over: Partial<HotelApiConfig> = {}): HotelApiConfig => ({
  baseUrl,
  key: DEMO_COMPANY.key,
  secret: DEMO_COMPANY.secret,
  timeouts: { bookingMs: 10_000, readMs: 5_000, searchMs: 10_000 },
  clockCorrection: true,
  maxConnections: 4,
  ...over,
});

const OPTIONS: DoctorOptions = {
  country: 'IT',
  search: STAY,
  samples: 2,
  maxCallsPerSecond: 0,
  inactive: { key: INACTIVE.key, secret: INACTIVE.secret },
};

/** Runs the doctor against a simulator built with `sim`, then closes it. */
async function doctorAgainst(
  sim: SimulatorOptions,
  over: { config?: Partial<HotelApiConfig>; options?: Partial<DoctorOptions> } = {},
): Promise<{ report: DoctorReport; simulator: Simulator }> {
  const simulator = buildSimulator({ companies: [DEMO_COMPANY, INACTIVE], ...sim });
  const { origin } = await simulator.listen();
  try {
    const report = await runDoctor(hotelApi(origin, over.config), { ...OPTIONS, ...over.options });
    return { report, simulator };
  } finally {
    await simulator.close();
  }
}

/** `name: verdict` of every check that is not ok. */
const notOk = (report: DoctorReport) =>
  report.checks.filter((c) => c.verdict !== 'ok').map((c) => `${c.name}: ${c.verdict}`);

const check = (report: DoctorReport, name: string) => {
  const found = report.checks.find((c) => c.name === name);
  assert.ok(found, `${name} ran: ${JSON.stringify(report.skipped)}`);
  return found;
};

describe('doctor against the plain simulator', () => {
  it('reports every check ok and exits 0', async () => {
    const { report } = await doctorAgainst({});
    assert.deepEqual(notOk(report), []);
    assert.equal(report.exitCode, 0);
    assert.deepEqual(
      report.skipped.map((s) => s.name),
      [...BOOK_CHECKS],
    );
    assert.equal(check(report, 'inactive-account').verdict, 'ok');
  });

  it('with a test booking, leaves the booking cancelled and the order id on it', async () => {
    const { report, simulator } = await doctorAgainst(
      {},
      {
        options: {
          propertyId: 1001,
          book: { orderId: 'doctor-test-1', orderIdField: 'custom_field_10' },
        },
      },
    );
    assert.deepEqual(notOk(report), []);
    assert.equal(report.exitCode, 0);
    assert.equal(report.leftBehind, undefined);
    const made = simulator.bookings();
    assert.equal(made.length, 1);
    assert.equal(made[0]?.status, 'CANCELLED');
    assert.deepEqual(
      simulator.bookings({ customFields: { custom_field_10: 'doctor-test-1' } }).length,
      1,
    );
    assert.match(check(report, 'book-cancel').evidence, /cancelled \(204\)/);
  });

  it('follows a cancellation answered 202 until retrieve shows CANCELLED', async () => {
    const { report, simulator } = await doctorAgainst(
      {},
      {
        options: {
          book: {
            optionId: scenarioOptionId('cancel-202-resolves', { checkin: STAY.checkin }),
            orderId: 'doctor-test-2',
            orderIdField: 'custom_field_10',
            cancelPollMs: 20,
          },
        },
      },
    );
    const cancel = check(report, 'book-cancel');
    assert.equal(cancel.verdict, 'ok');
    assert.match(cancel.evidence, /202 .*CANCELLED/);
    assert.equal(simulator.bookings()[0]?.status, 'CANCELLED');
  });

  it('says loudly, with its id, when a test booking is not seen cancelled', async () => {
    const { report, simulator } = await doctorAgainst(
      {},
      {
        options: {
          book: {
            optionId: scenarioOptionId('cancel-202-never', { checkin: STAY.checkin }),
            orderId: 'doctor-test-3',
            orderIdField: 'custom_field_10',
            cancelPollMs: 10,
          },
        },
      },
    );
    const id = simulator.bookings()[0]?.bookingId;
    assert.equal(check(report, 'book-cancel').verdict, 'fail');
    assert.deepEqual(
      { bookingId: report.leftBehind?.bookingId, orderId: report.leftBehind?.orderId },
      { bookingId: id, orderId: 'doctor-test-3' },
    );
    assert.equal(report.exitCode, 1);
  });
});

describe('doctor against each deviation the simulator plays', () => {
  const cases: {
    deviation: NonNullable<SimulatorOptions['deviations']>;
    expected: string[];
    config?: Partial<HotelApiConfig>;
    options?: Partial<DoctorOptions>;
  }[] = [
    { deviation: { 'renamed-field': true }, expected: ['availability: fail'] },
    { deviation: { 'retyped-field': true }, expected: ['content-list: fail'] },
    { deviation: { 'detail-string': true }, expected: ['validation-errors: warn'] },
    { deviation: { 'date-format': true }, expected: ['date-formats: warn'] },
    {
      deviation: { 'date-format': true },
      expected: ['date-formats: warn', 'book-stay-terms: fail'],
      options: {
        propertyId: 1001,
        book: { orderId: 'doctor-dates', orderIdField: 'custom_field_10' },
      },
    },
    { deviation: { 'clock-offset': 600 }, expected: ['clock: warn'] },
    { deviation: { 'comma-arrays': true }, expected: ['array-encoding: fail'] },
    {
      deviation: { 'slow-endpoint': 300 },
      expected: ['latency: warn'],
      config: { timeouts: { bookingMs: 10_000, readMs: 500, searchMs: 10_000 } },
    },
    {
      deviation: { redirect: true },
      expected: ['redirects: fail', 'content-list: fail'],
      options: { propertyId: 1001 },
    },
  ];
  for (const c of cases) {
    const label = `${Object.keys(c.deviation).join(', ')}${c.options?.book ? ' (with --book)' : ''}`;
    it(`${label} is reported as ${c.expected.join(' and ')}`, async () => {
      const { report, simulator } = await doctorAgainst(
        { deviations: c.deviation },
        { ...(c.config ? { config: c.config } : {}), ...(c.options ? { options: c.options } : {}) },
      );
      assert.deepEqual(notOk(report), c.expected);
      assert.equal(report.exitCode, c.expected.some((e) => e.endsWith('fail')) ? 1 : 0);
      for (const r of report.checks.filter((x) => x.verdict === 'fail')) {
        assert.ok(r.verdict === 'fail' && r.breaks.length > 0, `${r.name} says what breaks`);
      }
      for (const b of simulator.bookings()) assert.equal(b.status, 'CANCELLED');
    });
  }

  it('a renamed field is listed as a field the product does not read', async () => {
    const { report } = await doctorAgainst({ deviations: { 'renamed-field': true } });
    assert.match(
      check(report, 'availability').info?.join(' ') ?? '',
      /properties\[\]\.rooms\[\]\.name/,
    );
  });

  it('a clock beyond the window without clock correction stops the run with exit 2', async () => {
    const { report } = await doctorAgainst(
      { deviations: { 'clock-offset': 600 } },
      { config: { clockCorrection: false } },
    );
    assert.deepEqual(notOk(report), ['credentials: fail', 'clock: fail']);
    assert.deepEqual(report.stop, { kind: 'unauthenticated', check: 'credentials' });
    assert.equal(report.exitCode, 2);
  });
});

describe('doctor when it cannot check', () => {
  it('exits 2 when the supplier cannot be reached', async () => {
    const port = await freePort();
    const report = await runDoctor(hotelApi(`http://127.0.0.1:${port}`), OPTIONS);
    assert.deepEqual(notOk(report), ['reachable: fail']);
    assert.equal(report.stop?.kind, 'unreachable');
    assert.equal(report.exitCode, 2);
  });

  it('exits 2 when the credentials are refused, without printing the secret', async () => {
    const simulator = buildSimulator({ companies: [DEMO_COMPANY] });
    const { origin } = await simulator.listen();
    try {
      const report = await runDoctor(hotelApi(origin, { secret: 'not-the-secret-xyz' }), OPTIONS);
      assert.equal(check(report, 'credentials').verdict, 'fail');
      assert.equal(report.stop?.kind, 'unauthenticated');
      assert.equal(report.exitCode, 2);
      assert.doesNotMatch(JSON.stringify(report), /not-the-secret-xyz/);
    } finally {
      await simulator.close();
    }
  });

  it("exits 2 when the supplier's TLS certificate is not trusted, naming the certificate", async () => {
    const simulator = buildSimulator({ companies: [DEMO_COMPANY] });
    const { origin } = await simulator.listen();
    const certs = await makeCertificates(mkdtempSync(join(tmpdir(), 'hbo-doctor-tls-')));
    // HTTPS in front of the simulator, with a certificate from a CA the client does not trust.
    const server = createTlsServer(
      { cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) },
      (socket) => {
        const upstream = connect(Number(new URL(origin).port), '127.0.0.1');
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const report = await runDoctor(hotelApi(`https://127.0.0.1:${port}`), OPTIONS);
      assert.deepEqual(notOk(report), ['reachable: fail']);
      assert.match(check(report, 'reachable').evidence, /certificate/i);
      assert.equal(report.exitCode, 2);
    } finally {
      server.close();
      await simulator.close();
    }
  });
});
