import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import type { CallEvent } from '../../src/hotel-api';
import { HotelApiClient, HotelApiError } from '../../src/hotel-api';
import { CONTENT_PAGE_SIZE, contentPageCount } from '../../src/catalogue/sync-contract';
import {
  AVAILABILITY_BODY,
  BOOKING_REQUEST,
  PRICE,
  PRICE_CHECK_BODY,
  PROPERTY_DETAIL_BODY,
  RETRIEVE_BODY,
  sendJson,
  startServer,
  supplier,
  testConfig,
  TEST_KEY,
} from './fake-supplier';
import type { TestServer } from './fake-supplier';

async function rejection(p: Promise<unknown>): Promise<HotelApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof HotelApiError, `expected a HotelApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

describe('HotelApiClient endpoints', () => {
  let server: TestServer;
  let client: HotelApiClient;
  before(async () => {
    server = await startServer(supplier);
    client = new HotelApiClient(testConfig(server.baseUrl));
  });
  after(async () => {
    await client.close();
    await server.close();
  });
  const last = () => {
    const rec = server.received.at(-1);
    assert.ok(rec, 'the server received a request');
    return rec;
  };

  it('searches availability, sending arrays as repeated keys with literal commas', async () => {
    const r = await client.availability({
      checkin: '2030-01-01',
      checkout: '2030-01-03',
      propertyIds: [1, 2],
      occupancy: ['2', '2-5,7'],
    });
    assert.equal(last().method, 'GET');
    assert.equal(last().path, '/api/v1/properties/availability');
    assert.equal(
      last().rawQuery,
      'checkin=2030-01-01&checkout=2030-01-03&property_id=1&property_id=2&occupancy=2&occupancy=2-5,7',
    );
    assert.equal(r.properties.length, 1);
    const room = r.properties[0]?.rooms[0];
    assert.equal(room?.id, 'opt-1');
    assert.deepEqual(room?.price, PRICE);
    assert.deepEqual(room?.occupancy_of_rooms, [{ adults: 2, children: [5, 7] }]);
    assert.deepEqual(r.warnings, ['2']);
  });

  it('keeps fields the seed does not document instead of dropping them', async () => {
    const r = await client.availability({
      checkin: '2030-01-01',
      checkout: '2030-01-03',
      propertyIds: [1],
      occupancy: ['2'],
    });
    assert.equal(r.properties[0]?.rooms[0]?.supplier_extra, 'kept');
    assert.deepEqual(AVAILABILITY_BODY.properties[0]?.rooms[0]?.id, r.properties[0]?.rooms[0]?.id);
  });

  it('lists a page of properties and counts pages of 200', async () => {
    const r = await client.listProperties({ countryCode: 'IT', languageCode: 'it', page: 2 });
    assert.equal(last().path, '/api/v1/properties/content/');
    assert.equal(last().rawQuery, 'country_code=IT&language_code=it&page=2');
    assert.equal(r.total, 401);
    assert.equal(r.properties[0]?.name, 'Hotel Uno');
    assert.equal(r.properties[0]?.city, 'Roma');
    assert.equal(CONTENT_PAGE_SIZE, 200);
    assert.equal(contentPageCount(r.total), 3);
    assert.equal(contentPageCount(0), 0);
    assert.equal(contentPageCount(200), 1);
    assert.equal(contentPageCount(201), 2);
  });

  it('omits optional list parameters the caller did not give', async () => {
    await client.listProperties({ countryCode: 'FR' });
    assert.equal(last().rawQuery, 'country_code=FR');
  });

  it('reads a property detail by id in the path', async () => {
    const r = await client.getProperty({ hotelId: 1, languageCode: 'en' });
    assert.equal(last().path, '/api/v1/properties/content/1');
    assert.equal(last().rawQuery, 'language_code=en');
    assert.equal(r.id, 1);
    assert.deepEqual(r.coordinates, PROPERTY_DETAIL_BODY.coordinates);
    assert.deepEqual(r.descriptions, { headline: 'Central' });
  });

  it('reads the static reference list in the asked language', async () => {
    const r = await client.staticReferenceList({ language: 'it' });
    assert.equal(last().path, '/api/v1/static_content_reference_list');
    assert.equal(last().rawQuery, 'language=it');
    assert.equal(r.hotel_attributes[0]?.name, 'x');
  });

  it('price-checks an option, percent-encoding what needs it', async () => {
    const r = await client.priceCheck({ optionId: 'opt 1/2&x=y' });
    assert.equal(last().path, '/api/v1/price-check');
    assert.equal(last().rawQuery, 'option_id=opt%201%2F2%26x%3Dy');
    assert.deepEqual(r, PRICE_CHECK_BODY);
  });

  it('creates a booking with a JSON body and reads the 201 answer', async () => {
    const r = await client.createBooking({ optionId: 'tok-1', body: BOOKING_REQUEST });
    assert.equal(last().method, 'POST');
    assert.equal(last().path, '/api/v1/booking');
    assert.equal(last().rawQuery, 'option_id=tok-1');
    assert.match(String(last().headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(last().body), BOOKING_REQUEST);
    assert.deepEqual(r, { status: 'CONFIRMED', booking_id: 4242 });
  });

  it('retrieves a booking', async () => {
    const r = await client.retrieveBooking({ bookingId: 4242 });
    assert.equal(last().path, '/api/v1/retrieve');
    assert.equal(last().rawQuery, 'booking_id=4242');
    assert.equal(r.booking_id, RETRIEVE_BODY.booking_id);
    assert.equal(r.price?.payment_status, 'PAID');
    assert.equal(r.rooms[0]?.lead_last_name, 'Lovelace');
  });

  it('reads a 204 cancel as CANCELLED', async () => {
    const r = await client.cancelBooking({ bookingId: 4242 });
    assert.equal(last().method, 'DELETE');
    assert.equal(last().path, '/api/v1/cancel');
    assert.equal(last().rawQuery, 'booking_id=4242');
    assert.deepEqual(r, { outcome: 'CANCELLED' });
  });

  it('signs every request so that signing.verifySignature accepts it', () => {
    assert.ok(server.received.length >= 10);
    for (const rec of server.received) {
      assert.equal(rec.auth, 'ok', `${rec.method} ${rec.path}`);
      assert.match(
        String(rec.headers.authorization),
        new RegExp(`^API-Key=${TEST_KEY},Signature=[0-9a-f]{64},Timestamp=\\d+$`),
      );
    }
  });

  it('reuses keep-alive connections for sequential calls', () => {
    // A pool may open a second socket while the first is still being released; never one per call.
    assert.ok(server.connections() <= 2, `${server.connections()} connections`);
  });
});

describe('HotelApiClient behaviour', () => {
  it('reads a 202 cancel as PENDING with the supplier status and message', async () => {
    const server = await startServer((_rec, res) =>
      sendJson(res, 202, { status: 'OK', message: 'Booking is already cancelled' }),
    );
    const client = new HotelApiClient(testConfig(server.baseUrl));
    try {
      assert.deepEqual(await client.cancelBooking({ bookingId: 7 }), {
        outcome: 'PENDING',
        status: 'OK',
        message: 'Booking is already cancelled',
      });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('signs each request afresh with the timestamp of the moment it is sent', async () => {
    const server = await startServer(supplier);
    let clock = Date.now();
    const client = new HotelApiClient(testConfig(server.baseUrl, { clockCorrection: false }), {
      now: () => clock,
    });
    try {
      await client.priceCheck({ optionId: 'a' });
      clock += 7_000;
      await client.priceCheck({ optionId: 'a' });
      const [first, second] = server.received;
      assert.equal(first?.timestamp, Math.floor((clock - 7_000) / 1000));
      assert.equal(second?.timestamp, Math.floor(clock / 1000));
      assert.notEqual(first?.headers.authorization, second?.headers.authorization);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('appends /api/v1 to the base URL path once', async () => {
    const server = await startServer(supplier);
    const withPrefix = new HotelApiClient(testConfig(`${server.baseUrl}/api/v1/`));
    const withPath = new HotelApiClient(testConfig(`${server.baseUrl}/supplier`));
    try {
      await withPrefix.priceCheck({ optionId: 'a' });
      assert.equal(server.received.at(-1)?.path, '/api/v1/price-check');
      await assert.rejects(withPath.priceCheck({ optionId: 'a' }), { code: 'NOT_FOUND' });
      assert.equal(server.received.at(-1)?.path, '/supplier/api/v1/price-check');
    } finally {
      await withPrefix.close();
      await withPath.close();
      await server.close();
    }
  });

  it('measures the supplier clock offset from the Date header of every answer', async () => {
    let skewMs = 10 * 60_000;
    const server = await startServer((_rec, res) =>
      sendJson(res, 200, PRICE_CHECK_BODY, { date: new Date(Date.now() + skewMs).toUTCString() }),
    );
    const client = new HotelApiClient(testConfig(server.baseUrl));
    try {
      assert.equal(client.clockOffsetMs, 0);
      await client.priceCheck({ optionId: 'a' });
      assert.ok(Math.abs(client.clockOffsetMs - skewMs) <= 1_500, `offset ${client.clockOffsetMs}`);
      skewMs = -30_000;
      await client.priceCheck({ optionId: 'a' });
      assert.ok(Math.abs(client.clockOffsetMs - skewMs) <= 1_500, `offset ${client.clockOffsetMs}`);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('uses the search timeout for availability, the booking timeout for POST /booking and the read timeout otherwise', async () => {
    const server = await startServer(async (rec, res) => {
      await sleep(300);
      supplier(rec, res);
    });
    const client = new HotelApiClient(
      testConfig(server.baseUrl, { timeouts: { readMs: 100, searchMs: 2_000, bookingMs: 2_000 } }),
    );
    try {
      await client.availability({
        checkin: '2030-01-01',
        checkout: '2030-01-02',
        propertyIds: [1],
        occupancy: ['1'],
      });
      await client.createBooking({ optionId: 't', body: BOOKING_REQUEST });
      await assert.rejects(client.priceCheck({ optionId: 'a' }), { code: 'TIMEOUT' });
      await assert.rejects(client.retrieveBooking({ bookingId: 1 }), { code: 'TIMEOUT' });
      // opts.timeoutMs overrides the configured one, both ways.
      await client.priceCheck({ optionId: 'a' }, { timeoutMs: 2_000 });
      await assert.rejects(
        client.createBooking({ optionId: 't', body: BOOKING_REQUEST }, { timeoutMs: 100 }),
        { code: 'TIMEOUT' },
      );
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('makes a single attempt: a failure is reported, never retried', async () => {
    const server = await startServer((_rec, res) => sendJson(res, 503, { detail: 'down' }));
    const client = new HotelApiClient(testConfig(server.baseUrl));
    try {
      await assert.rejects(client.priceCheck({ optionId: 'a' }), { code: 'SUPPLIER_UNAVAILABLE' });
      await assert.rejects(client.createBooking({ optionId: 't', body: BOOKING_REQUEST }), {
        code: 'SUPPLIER_UNAVAILABLE',
      });
      await sleep(50);
      assert.equal(server.received.length, 2);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('consumes error bodies so the keep-alive connection is reused after a failure', async () => {
    let n = 0;
    const server = await startServer((rec, res) => {
      n++;
      if (n % 2 === 1) sendJson(res, 500, { detail: 'x'.repeat(50_000) });
      else supplier(rec, res);
    });
    const client = new HotelApiClient(testConfig(server.baseUrl, { maxConnections: 1 }));
    try {
      for (let i = 0; i < 3; i++) {
        await assert.rejects(client.priceCheck({ optionId: 'a' }), {
          code: 'SUPPLIER_UNAVAILABLE',
        });
        await client.priceCheck({ optionId: 'a' });
      }
      assert.equal(server.connections(), 1);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('reports every call to the onCall hook and survives a hook that throws', async () => {
    const server = await startServer((rec, res) =>
      rec.path.endsWith('/retrieve')
        ? sendJson(res, 404, { detail: 'Booking not found' })
        : supplier(rec, res),
    );
    const events: CallEvent[] = [];
    const client = new HotelApiClient(testConfig(server.baseUrl), {
      onCall: (e) => {
        events.push(e);
        throw new Error('broken metrics');
      },
    });
    try {
      await client.priceCheck({ optionId: 'a' });
      await assert.rejects(client.retrieveBooking({ bookingId: 9 }), { code: 'NOT_FOUND' });
      await assert.rejects(client.retrieveBooking({ bookingId: -1 }), { code: 'INVALID_REQUEST' });
      assert.equal(events.length, 2, 'invalid requests send nothing and are not reported');
      const [ok, notFound] = events;
      assert.deepEqual(
        { endpoint: ok?.endpoint, method: ok?.method, statusCode: ok?.statusCode, code: ok?.code },
        { endpoint: '/price-check', method: 'GET', statusCode: 200, code: undefined },
      );
      assert.deepEqual(
        { endpoint: notFound?.endpoint, statusCode: notFound?.statusCode, code: notFound?.code },
        { endpoint: '/retrieve', statusCode: 404, code: 'NOT_FOUND' },
      );
      assert.ok((ok?.durationMs ?? -1) >= 0);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('opens at most maxConnections sockets under concurrency', async () => {
    const server = await startServer(async (rec, res) => {
      await sleep(20);
      supplier(rec, res);
    });
    const client = new HotelApiClient(testConfig(server.baseUrl, { maxConnections: 3 }));
    try {
      await Promise.all(Array.from({ length: 12 }, () => client.priceCheck({ optionId: 'a' })));
      assert.equal(server.connections(), 3);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('closes its pool on close() and then refuses calls without sending them', async () => {
    const server = await startServer(supplier);
    const client = new HotelApiClient(testConfig(server.baseUrl));
    try {
      await client.priceCheck({ optionId: 'a' });
      await client.close();
      await client.close(); // idempotent
      const err = await rejection(client.priceCheck({ optionId: 'a' }));
      assert.equal(err.code, 'CONNECTION_FAILED_BEFORE_SEND');
      assert.equal(err.ambiguous, false);
      assert.equal(server.received.length, 1);
    } finally {
      await server.close();
    }
  });

  it('sends through a caller-provided dispatcher and leaves it open on close()', async () => {
    const server = await startServer(supplier);
    const agent = new Agent({ connections: 1 });
    const client = new HotelApiClient(testConfig(server.baseUrl), { dispatcher: agent });
    try {
      await client.priceCheck({ optionId: 'a' });
      await client.close();
      assert.equal(agent.closed, false);
      assert.equal(server.received.length, 1);
    } finally {
      await agent.close();
      await server.close();
    }
  });
});

describe('Layering', () => {
  it('never imports Temporal from the hotel API client', () => {
    const dir = path.join(__dirname, '../../src/hotel-api');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    assert.ok(files.includes('client.ts'));
    for (const f of files) {
      assert.doesNotMatch(
        readFileSync(path.join(dir, f), 'utf8'),
        /(from|import|require\()\s*['"]@temporalio\//,
        f,
      );
    }
  });
});
