import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { Agent, buildConnector } from 'undici';
import type { HotelApiClientOptions } from '../../src/hotel-api';
import {
  CLASSIFICATION_TABLE,
  classificationTableMarkdown,
  classifyNetworkError,
  classifyResponse,
  HotelApiClient,
  HotelApiError,
  HotelApiErrorCode,
  parseRetryAfter,
  redact,
} from '../../src/hotel-api';
import type { Responder, TestServer } from './fake-supplier';
import {
  BOOKING_REQUEST,
  PRICE_CHECK_BODY,
  sendJson,
  startServer,
  supplier,
  TEST_SECRET,
  testConfig,
} from './fake-supplier';

async function rejection(p: Promise<unknown>): Promise<HotelApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof HotelApiError, `expected a HotelApiError, got ${inspect(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

/** Runs `fn` against a fresh server and client, then closes both. */
async function withServer<T>(
  respond: Responder,
  fn: (client: HotelApiClient, server: TestServer) => Promise<T>,
  opts: {
    config?: Parameters<typeof testConfig>[1];
    client?: HotelApiClientOptions;
    serverNow?: () => number;
  } = {},
): Promise<T> {
  const server = await startServer(respond, { serverNow: opts.serverNow });
  const client = new HotelApiClient(testConfig(server.baseUrl, opts.config), opts.client);
  try {
    return await fn(client, server);
  } finally {
    await client.close().catch(() => undefined);
    await server.close();
  }
}

const booking = (c: HotelApiClient) => c.createBooking({ optionId: 'tok', body: BOOKING_REQUEST });
const priceCheck = (c: HotelApiClient) => c.priceCheck({ optionId: 'opt-1' });

function assertFlags(err: HotelApiError, code: string, retryable: boolean, ambiguous: boolean) {
  assert.equal(err.code, code, err.message);
  assert.equal(err.retryable, retryable, `${code} retryable`);
  assert.equal(err.ambiguous, ambiguous, `${code} ambiguous`);
}

describe('Classification of supplier answers', () => {
  it('reports a 401 with a correct clock as AUTH_INVALID, not retryable and not ambiguous', async () => {
    // The server checks the signature against TEST_SECRET; this client signs with another one.
    const err = await withServer(supplier, async (_c, server) => {
      const client = new HotelApiClient({ ...testConfig(server.baseUrl), secret: 'wrong-secret' });
      try {
        return await rejection(priceCheck(client));
      } finally {
        await client.close();
      }
    });
    assertFlags(err, 'AUTH_INVALID', false, false);
    assert.equal(err.statusCode, 401);
    assert.equal(err.endpoint, '/price-check');
    assert.equal(err.method, 'GET');
    assert.match(err.message, /Invalid API credentials/);
  });

  it('reports a 403 as ACCOUNT_INACTIVE, not retryable and not ambiguous', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 403, { detail: 'Company account is not active' }),
      (c) => rejection(booking(c)),
    );
    assertFlags(err, 'ACCOUNT_INACTIVE', false, false);
    assert.equal(err.statusCode, 403);
  });

  it("parses a 422 with pydantic's list detail into named field errors", async () => {
    const err = await withServer(
      (_r, res) =>
        sendJson(res, 422, {
          detail: [
            {
              type: 'int_parsing',
              loc: ['query', 'property_id', 0],
              msg: 'Input should be a valid integer',
              input: 'x',
            },
            {
              type: 'missing',
              loc: ['header', 'authorization'],
              msg: 'Field required',
              input: null,
            },
          ],
        }),
      (c) => rejection(booking(c)),
    );
    assertFlags(err, 'VALIDATION', false, false);
    assert.deepEqual(err.fieldErrors, [
      { field: 'query.property_id.0', message: 'Input should be a valid integer' },
      { field: 'header.authorization', message: 'Field required' },
    ]);
    assert.match(err.message, /query\.property_id\.0: Input should be a valid integer/);
  });

  it('parses a 422 whose detail is a plain string', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 422, { detail: 'option_id is not valid' }),
      (c) => rejection(priceCheck(c)),
    );
    assertFlags(err, 'VALIDATION', false, false);
    assert.deepEqual(err.fieldErrors, [{ field: '', message: 'option_id is not valid' }]);
    assert.match(err.message, /option_id is not valid/);
  });

  it('reports the retrieve 404 shape {status, message} as NOT_FOUND', async () => {
    const err = await withServer(
      (_r, res) =>
        sendJson(res, 404, {
          status: 'NOT_FOUND',
          message: 'Booking with id 5 could not be found',
        }),
      (c) => rejection(c.retrieveBooking({ bookingId: 5 })),
    );
    assertFlags(err, 'NOT_FOUND', false, false);
    assert.equal(err.statusCode, 404);
    assert.match(err.message, /could not be found/);
  });

  it('reports the 404 shape {detail} as NOT_FOUND', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 404, { detail: 'Property not found or inactive' }),
      (c) => rejection(c.getProperty({ hotelId: 3 })),
    );
    assertFlags(err, 'NOT_FOUND', false, false);
    assert.equal(err.endpoint, '/properties/content/{hotel_id}');
    assert.match(err.message, /Property not found or inactive/);
  });

  it('reports a 404 from POST /booking as an ambiguous CLIENT_ERROR, since it proves nothing', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 404, { detail: 'Not Found' }),
      (c) => rejection(booking(c)),
    );
    assertFlags(err, 'CLIENT_ERROR', false, true);
  });

  it('reports other 4xx answers as CLIENT_ERROR', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 409, { detail: 'conflict' }),
      (c) => rejection(priceCheck(c)),
    );
    assertFlags(err, 'CLIENT_ERROR', false, true);
    assert.equal(err.statusCode, 409);
  });

  it('reports a 429 as RATE_LIMITED with Retry-After in seconds', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 429, { detail: 'slow down' }, { 'retry-after': '7' }),
      (c) => rejection(priceCheck(c)),
    );
    assertFlags(err, 'RATE_LIMITED', true, false);
    assert.equal(err.retryAfterMs, 7_000);
  });

  it('reads a Retry-After HTTP date against the answer’s own Date header', async () => {
    // The supplier's clock is an hour ahead; the wait must not come out as an hour.
    const supplierNow = Date.now() + 3_600_000;
    const err = await withServer(
      (_r, res) =>
        sendJson(
          res,
          429,
          {},
          {
            date: new Date(supplierNow).toUTCString(),
            'retry-after': new Date(supplierNow + 30_000).toUTCString(),
          },
        ),
      (c) => rejection(priceCheck(c)),
    );
    assert.equal(err.code, 'RATE_LIMITED');
    assert.ok(
      err.retryAfterMs !== undefined && Math.abs(err.retryAfterMs - 30_000) <= 1_000,
      `${err.retryAfterMs}`,
    );
  });

  it('reports a 5xx as SUPPLIER_UNAVAILABLE, retryable, ambiguous, with Retry-After', async () => {
    const err = await withServer(
      (_r, res) =>
        sendJson(
          res,
          503,
          { detail: 'maintenance' },
          { 'retry-after': '2', 'x-request-id': 'req-77' },
        ),
      (c) => rejection(priceCheck(c)),
    );
    assertFlags(err, 'SUPPLIER_UNAVAILABLE', true, true);
    assert.equal(err.retryAfterMs, 2_000);
    assert.equal(err.requestId, 'req-77');
  });

  it('reports an HTML 502 on POST /booking as SUPPLIER_UNAVAILABLE: the booking may have committed', async () => {
    const err = await withServer(
      (_r, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body>Bad gateway</body></html>');
      },
      (c) => rejection(booking(c)),
    );
    assertFlags(err, 'SUPPLIER_UNAVAILABLE', true, true);
    assert.equal(err.statusCode, 502);
  });
});

describe('Classification of broken answers (CONTRACT)', () => {
  const cases: { name: string; respond: Responder }[] = [
    {
      name: 'an HTML page with status 200',
      respond: (_r, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>maintenance</html>');
      },
    },
    {
      name: 'truncated JSON',
      respond: (_r, res) => {
        const text = '{"status": "CONFIRMED", "booking_';
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': text.length });
        res.end(text);
      },
    },
    {
      name: 'valid JSON under a wrong content type',
      respond: (_r, res) => {
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end(JSON.stringify({ status: 'CONFIRMED', booking_id: 1 }));
      },
    },
    {
      name: 'a body that breaks the schema',
      respond: (_r, res) => sendJson(res, 201, { status: 'CONFIRMED', booking_id: 'one' }),
    },
    {
      name: 'a booking status the seed does not define',
      respond: (_r, res) => sendJson(res, 201, { status: 'MAYBE', booking_id: 1 }),
    },
    {
      name: 'an unexpected success status',
      respond: (_r, res) => sendJson(res, 202, { status: 'CONFIRMED', booking_id: 1 }),
    },
    {
      name: 'a redirect',
      respond: (_r, res) => {
        res.writeHead(307, { location: '/elsewhere' });
        res.end();
      },
    },
  ];
  for (const { name, respond } of cases) {
    it(`reports ${name} on POST /booking as CONTRACT, not retryable but ambiguous`, async () => {
      const err = await withServer(respond, (c) => rejection(booking(c)));
      assertFlags(err, 'CONTRACT', false, true);
    });
  }

  it('names the offending fields of a schema mismatch in issues', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 201, { status: 'CONFIRMED', booking_id: 'one' }),
      (c) => rejection(booking(c)),
    );
    assert.deepEqual(
      err.issues?.map((i) => i.path),
      [['booking_id']],
    );
    assert.match(err.message, /booking_id/);
  });

  it('reports a body over the 10 MiB default cap as CONTRACT and stops reading it', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const err = await withServer(
      (_r, res) => {
        // Chunked, no content-length: the cap must trip while streaming.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":"');
        let sent = 0;
        const pump = () => {
          while (sent < 12 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          if (!res.destroyed) res.end('"}');
        };
        pump();
      },
      (c) => rejection(priceCheck(c)),
    );
    assertFlags(err, 'CONTRACT', false, true);
    assert.match(err.message, /10485760-byte cap/);
  });

  it('rejects a declared oversize body at once, and the client stays usable', async () => {
    let n = 0;
    await withServer(
      (rec, res) => {
        if (++n === 1) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': 5_000 });
          res.write('{"x":"');
          return; // never finishes: only the declared size can stop this in time
        }
        supplier(rec, res);
      },
      async (c) => {
        const err = await rejection(priceCheck(c));
        assertFlags(err, 'CONTRACT', false, true);
        assert.match(err.message, /declares more than the 1000-byte cap/);
        assert.deepEqual(await priceCheck(c), PRICE_CHECK_BODY);
      },
      { client: { maxResponseBytes: 1_000 } },
    );
  });

  it('reports a cancel answered 200 as CONTRACT: only 202 and 204 have a meaning', async () => {
    const err = await withServer(
      (_r, res) => sendJson(res, 200, { status: 'OK' }),
      (c) => rejection(c.cancelBooking({ bookingId: 1 })),
    );
    assert.equal(err.code, 'CONTRACT');
    assert.equal(err.statusCode, 200);
  });
});

describe('Classification of network failures', () => {
  it('reports a connection refused on a closed port as CONNECTION_FAILED_BEFORE_SEND, not ambiguous', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const client = new HotelApiClient(testConfig(`http://127.0.0.1:${port}`));
    try {
      const err = await rejection(booking(client));
      assertFlags(err, 'CONNECTION_FAILED_BEFORE_SEND', true, false);
      assert.equal(err.requestSent, false);
      assert.match(err.message, /ECONNREFUSED/);
    } finally {
      await client.close();
    }
  });

  it('reports an unresolvable host as CONNECTION_FAILED_BEFORE_SEND', async () => {
    const client = new HotelApiClient(testConfig('http://no-such-host.invalid'));
    try {
      const err = await rejection(client.priceCheck({ optionId: 'a' }, { timeoutMs: 3_000 }));
      assertFlags(err, 'CONNECTION_FAILED_BEFORE_SEND', true, false);
    } finally {
      await client.close();
    }
  });

  it('reports a deadline that expires while queued for a connection as CONNECTION_FAILED_BEFORE_SEND, and never sends that request', async () => {
    await withServer(
      async (rec, res) => {
        await sleep(400);
        supplier(rec, res);
      },
      async (c, server) => {
        const first = c.priceCheck({ optionId: 'first' });
        const err = await rejection(booking(c).then(() => undefined));
        await first;
        await sleep(100);
        assertFlags(err, 'CONNECTION_FAILED_BEFORE_SEND', true, false);
        assert.equal(err.requestSent, false);
        assert.equal(server.received.length, 1, 'the queued booking never reached the server');
        assert.equal(server.received[0]?.path, '/api/v1/price-check');
      },
      { config: { maxConnections: 1, timeouts: { bookingMs: 150 } } },
    );
  });

  it('reports a slow answer beyond the deadline as TIMEOUT, retryable and ambiguous', async () => {
    const started = Date.now();
    const err = await withServer(
      async (rec, res) => {
        await sleep(2_000);
        if (!res.destroyed) supplier(rec, res);
      },
      async (c, server) => {
        const e = await rejection(booking(c));
        assert.equal(server.received.length, 1);
        return e;
      },
      { config: { timeouts: { bookingMs: 150 } } },
    );
    assertFlags(err, 'TIMEOUT', true, true);
    assert.equal(err.requestSent, true);
    assert.match(err.message, /150 ms/);
    assert.ok(Date.now() - started < 1_500, 'the deadline is enforced, not the server pace');
  });

  it('reports a connection closed after the request was written as CONNECTION_LOST, ambiguous', async () => {
    const err = await withServer(
      (_r, _res, req) => {
        req.socket.destroy();
      },
      (c) => rejection(booking(c)),
    );
    assertFlags(err, 'CONNECTION_LOST', true, true);
    assert.equal(err.requestSent, true);
  });

  it('reports a TCP reset after the request was written as CONNECTION_LOST, ambiguous', async () => {
    const err = await withServer(
      (_r, _res, req) => {
        (req.socket as Socket).resetAndDestroy();
      },
      (c) => rejection(booking(c)),
    );
    assertFlags(err, 'CONNECTION_LOST', true, true);
    assert.match(err.message, /ECONNRESET|UND_ERR_SOCKET/);
  });

  it('reports a host-unreachable error on a socket that already carried the booking as CONNECTION_LOST, never as proof it was not sent', async () => {
    // Real sockets: the client's connections are recorded by its connector; once the server has
    // read the whole booking, the client's socket fails with EHOSTUNREACH (a route lost mid-call).
    const clientSockets: Socket[] = [];
    const connect = buildConnector({});
    const agent = new Agent({
      connect: (opts, cb) =>
        connect(opts, (err, socket) => {
          if (socket) clientSockets.push(socket as Socket);
          cb(err, socket as never);
        }),
    });
    try {
      const err = await withServer(
        (_r, res) => {
          res.on('error', () => undefined);
          const route = Object.assign(new Error('connect EHOSTUNREACH'), { code: 'EHOSTUNREACH' });
          for (const socket of clientSockets) socket.destroy(route);
        },
        async (c, server) => {
          const e = await rejection(booking(c));
          assert.equal(server.received.length, 1, 'the supplier received the booking');
          assert.equal(server.received[0]?.method, 'POST');
          return e;
        },
        { client: { dispatcher: agent } },
      );
      assertFlags(err, 'CONNECTION_LOST', true, true);
      assert.equal(err.requestSent, true);
      assert.match(err.message, /EHOSTUNREACH/);
    } finally {
      await agent.close();
    }
  });

  it('reports a body cut short by a closed connection as CONNECTION_LOST', async () => {
    const err = await withServer(
      (_r, res) => {
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': 200 });
        res.write('{"status":"CONF', () => res.socket?.destroy());
      },
      (c) => rejection(booking(c)),
    );
    assertFlags(err, 'CONNECTION_LOST', true, true);
  });

  it("reports the caller's abort during the call as ABORTED, ambiguous", async () => {
    const ac = new AbortController();
    const err = await withServer(
      async (rec, res) => {
        // Abort once the supplier holds the request (a fixed delay raced the request under load).
        ac.abort();
        await sleep(1_000);
        if (!res.destroyed) supplier(rec, res);
      },
      async (c, server) => {
        const e = await rejection(
          c.createBooking({ optionId: 't', body: BOOKING_REQUEST }, { signal: ac.signal }),
        );
        assert.equal(server.received.length, 1);
        return e;
      },
    );
    assertFlags(err, 'ABORTED', false, true);
    assert.equal(err.requestSent, true);
  });

  it('sends nothing when the signal is already aborted', async () => {
    await withServer(supplier, async (c, server) => {
      const err = await rejection(c.priceCheck({ optionId: 'a' }, { signal: AbortSignal.abort() }));
      assert.equal(err.code, 'ABORTED');
      assert.equal(err.requestSent, false);
      await sleep(50);
      assert.equal(server.received.length, 0);
    });
  });
});

describe('Clock skew', () => {
  const ahead = 10 * 60_000;
  /** A supplier whose clock runs 10 minutes ahead and which checks signatures against it. */
  const skewedSupplier: Responder = (rec, res) => {
    const date = new Date(Date.now() + ahead).toUTCString();
    if (rec.auth !== 'ok')
      return sendJson(res, 401, { detail: 'Invalid API credentials' }, { date });
    sendJson(res, 200, PRICE_CHECK_BODY, { date });
  };

  it('reports a 401 while our clock is 10 minutes off as CLOCK_SKEW, then signs with the supplier time and succeeds', async () => {
    await withServer(
      skewedSupplier,
      async (c, server) => {
        const err = await rejection(priceCheck(c));
        assertFlags(err, 'CLOCK_SKEW', true, false);
        assert.ok(
          err.clockOffsetMs !== undefined && Math.abs(err.clockOffsetMs - ahead) < 1_500,
          `clockOffsetMs ${err.clockOffsetMs}`,
        );
        assert.ok(Math.abs(c.clockOffsetMs - ahead) < 1_500);
        assert.deepEqual(await priceCheck(c), PRICE_CHECK_BODY);
        assert.deepEqual(
          server.received.map((r) => r.auth),
          ['expired', 'ok'],
        );
      },
      { serverNow: () => Date.now() + ahead },
    );
  });

  it('reports CLOCK_SKEW as not retryable when clock correction is off, and keeps failing', async () => {
    await withServer(
      skewedSupplier,
      async (c) => {
        const err = await rejection(priceCheck(c));
        assertFlags(err, 'CLOCK_SKEW', false, false);
        assert.equal((await rejection(priceCheck(c))).code, 'CLOCK_SKEW');
      },
      { serverNow: () => Date.now() + ahead, config: { clockCorrection: false } },
    );
  });

  it('corrects a local clock that runs behind, measured from a correct supplier', async () => {
    await withServer(
      supplier,
      async (c) => {
        const err = await rejection(priceCheck(c));
        assert.equal(err.code, 'CLOCK_SKEW');
        assert.ok(err.clockOffsetMs !== undefined && Math.abs(err.clockOffsetMs - ahead) < 1_500);
        assert.deepEqual(await priceCheck(c), PRICE_CHECK_BODY);
      },
      { client: { now: () => Date.now() - ahead } },
    );
  });

  it('does not blame the clock for a 401 once the signature time matches the supplier', async () => {
    await withServer(
      (_r, res) =>
        sendJson(
          res,
          401,
          { detail: 'Invalid API credentials' },
          {
            date: new Date(Date.now() + ahead).toUTCString(),
          },
        ),
      async (c) => {
        assert.equal((await rejection(priceCheck(c))).code, 'CLOCK_SKEW');
        // The offset is now applied: the next 401 is about the credentials.
        const err = await rejection(priceCheck(c));
        assertFlags(err, 'AUTH_INVALID', false, false);
      },
    );
  });
});

describe('Secrets in errors', () => {
  it('never puts the secret or the authorization header in any message, JSON or stack', async () => {
    const echo: Responder = (rec, res) => {
      const auth = String(rec.headers.authorization);
      switch (rec.rawQuery.replace('option_id=', '')) {
        case '401':
          return sendJson(res, 401, { detail: `Invalid API credentials: ${auth}` });
        case '422':
          return sendJson(res, 422, {
            detail: [
              {
                type: 'value_error',
                loc: ['header', 'authorization'],
                msg: `bad header ${auth}`,
                input: auth,
              },
            ],
          });
        case '500':
          return sendJson(res, 500, { detail: `crashed on ${auth} with ${TEST_SECRET}` });
        case 'schema':
          return sendJson(res, 200, { status: auth, price: null, booking_id: null });
        case 'reset':
          res.socket?.destroy();
          return;
        default:
          return sendJson(res, 404, { status: 'x', message: `not found ${auth}` });
      }
    };
    await withServer(echo, async (c, server) => {
      const errors: HotelApiError[] = [];
      for (const optionId of ['401', '422', '500', 'schema', 'reset', 'other']) {
        errors.push(await rejection(c.priceCheck({ optionId })));
      }
      errors.push(await rejection(c.priceCheck({ optionId: '' })));
      errors.push(
        await rejection(
          c.priceCheck({ optionId: 'x' }, { timeoutMs: 1, signal: AbortSignal.abort() }),
        ),
      );
      const signatures = server.received.map((r) => String(r.headers.authorization));
      assert.equal(signatures.length, 6);
      for (const err of errors) {
        const texts = [
          err.message,
          JSON.stringify(err),
          String(err.stack),
          inspect(err, { depth: 10 }),
        ];
        for (const text of texts) {
          assert.ok(!text.includes(TEST_SECRET), `secret leaked by ${err.code}: ${text}`);
          for (const sig of signatures) {
            assert.ok(!text.includes(sig), `authorization leaked by ${err.code}`);
            assert.ok(!text.includes(sig.split(',')[1] ?? '-'), `signature leaked by ${err.code}`);
          }
        }
      }
      assert.deepEqual(
        errors.map((e) => e.code),
        [
          'AUTH_INVALID',
          'VALIDATION',
          'SUPPLIER_UNAVAILABLE',
          'CONTRACT',
          'CONNECTION_LOST',
          'NOT_FOUND',
          'INVALID_REQUEST',
          'ABORTED',
        ],
      );
    });
  });

  it('redacts authorization-like text and given secrets', () => {
    const header = 'API-Key=k,Signature=0123456789abcdef0123456789abcdef,Timestamp=17';
    assert.equal(redact(`x ${header} y`), 'x [redacted authorization] y');
    assert.equal(redact('Signature=0123456789abcdef0123'), 'Signature=[redacted]');
    assert.equal(redact('a hunter22 b', ['hunter22']), 'a [redacted] b');
  });
});

describe('Classification table', () => {
  it('has exactly one row per code, and every error takes its flags from it', () => {
    const codes = Object.values(HotelApiErrorCode);
    assert.deepEqual(CLASSIFICATION_TABLE.map((r) => r.code).sort(), [...codes].sort());
    for (const row of CLASSIFICATION_TABLE) {
      for (const clockCorrection of [false, true]) {
        const err = new HotelApiError({
          code: row.code,
          message: 'm',
          endpoint: '/x',
          method: 'GET',
          clockCorrection,
        });
        const retryable = row.retryable === 'if-clock-correction' ? clockCorrection : row.retryable;
        assert.equal(err.retryable, retryable, row.code);
        assert.equal(err.ambiguous, row.ambiguous, row.code);
      }
      assert.ok(row.trigger.length > 0 && row.meaning.length > 0);
    }
  });

  it('renders as a Markdown table with one line per code for the README', () => {
    const md = classificationTableMarkdown();
    const lines = md.split('\n');
    assert.equal(lines.length, CLASSIFICATION_TABLE.length + 2);
    for (const row of CLASSIFICATION_TABLE) {
      const line = lines.find((l) => l.startsWith(`| \`${row.code}\` |`));
      assert.ok(line, row.code);
      assert.equal(line.split(' | ').length, 5, `${row.code} has five cells`);
    }
    assert.match(md, /\| `CLOCK_SKEW` \|.*\| yes, with clock correction on \| no \|/);
  });

  it('makes ambiguous every failure that does not prove a booking was not made', () => {
    const provesNothingSent = CLASSIFICATION_TABLE.filter((r) => !r.ambiguous).map((r) => r.code);
    assert.deepEqual(provesNothingSent.sort(), [
      'ACCOUNT_INACTIVE',
      'AUTH_INVALID',
      'CLOCK_SKEW',
      'CONNECTION_FAILED_BEFORE_SEND',
      'INVALID_REQUEST',
      'NOT_FOUND',
      'RATE_LIMITED',
      'VALIDATION',
    ]);
  });
});

describe('classifyNetworkError', () => {
  const ctx = { endpoint: '/booking', method: 'POST' as const };
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it('decides "never sent" by whether the request was written, never by the error code', () => {
    const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'];
    for (const code of [
      ...codes,
      'EHOSTUNREACH',
      'ENETUNREACH',
      'EADDRNOTAVAIL',
      'CERT_HAS_EXPIRED',
    ]) {
      assert.equal(
        classifyNetworkError(withCode(code), { ...ctx, requestSent: false }).code,
        'CONNECTION_FAILED_BEFORE_SEND',
        code,
      );
      const after = classifyNetworkError(withCode(code), { ...ctx, requestSent: true });
      assert.equal(after.code, 'CONNECTION_LOST', `${code} after the write`);
      assert.equal(after.ambiguous, true, `${code} after the write`);
    }
  });

  it('treats socket failures after the write as CONNECTION_LOST and before it as before-send', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']) {
      assert.equal(
        classifyNetworkError(withCode(code), { ...ctx, requestSent: true }).code,
        'CONNECTION_LOST',
        code,
      );
      assert.equal(
        classifyNetworkError(withCode(code), { ...ctx, requestSent: false }).code,
        'CONNECTION_FAILED_BEFORE_SEND',
        code,
      );
    }
  });

  it("finds the code in the error's cause chain", () => {
    const err = new Error('fetch failed', { cause: withCode('ECONNRESET') });
    assert.equal(classifyNetworkError(err, { ...ctx, requestSent: true }).code, 'CONNECTION_LOST');
  });

  it("maps undici's own timers to TIMEOUT and malformed HTTP to CONTRACT", () => {
    assert.equal(
      classifyNetworkError(withCode('UND_ERR_HEADERS_TIMEOUT'), { ...ctx, requestSent: true }).code,
      'TIMEOUT',
    );
    assert.equal(
      classifyNetworkError(withCode('HPE_INVALID_CONSTANT'), { ...ctx, requestSent: true }).code,
      'CONTRACT',
    );
  });
});

describe('classifyResponse and Retry-After', () => {
  const base = { endpoint: '/price-check', method: 'GET' as const, headers: {}, body: undefined };

  it('maps unknown statuses outside 4xx/5xx to CONTRACT', () => {
    assert.equal(classifyResponse({ ...base, statusCode: 304 }).code, 'CONTRACT');
  });

  it('reports a 401 without a Date header as AUTH_INVALID', () => {
    assert.equal(classifyResponse({ ...base, statusCode: 401 }).code, 'AUTH_INVALID');
  });

  it('parses delta seconds and HTTP dates, and ignores garbage', () => {
    assert.equal(parseRetryAfter({ 'retry-after': '0' }), 0);
    assert.equal(parseRetryAfter({ 'retry-after': '120' }), 120_000);
    assert.equal(parseRetryAfter({ 'retry-after': 'soon' }), undefined);
    assert.equal(parseRetryAfter({}), undefined);
    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(parseRetryAfter({ 'retry-after': 'Tue, 01 Jan 2030 00:00:09 GMT' }, now), 9_000);
    assert.equal(parseRetryAfter({ 'retry-after': 'Mon, 31 Dec 2029 00:00:00 GMT' }, now), 0);
  });
});
