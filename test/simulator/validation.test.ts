import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { sign } from '../../src/hotel-api/signing';
import type { TestSim } from './helpers';
import { ACME, availabilityQuery, bookingBody, startSim } from './helpers';

type Issue = { type: string; loc: (string | number)[]; msg: string };
const locs = (body: { detail: Issue[] }) => body.detail.map((d) => d.loc);
const only = (body: { detail: Issue[] }): Issue => {
  assert.equal(body.detail.length, 1, JSON.stringify(body));
  const issue = body.detail[0];
  assert.ok(issue);
  return issue;
};

describe('Routing and response headers', () => {
  let t: TestSim;
  before(async () => {
    t = await startSim({ now: () => Date.UTC(2030, 0, 2, 3, 4, 5) });
  });
  after(() => t.close());
  const signedAt = Date.UTC(2030, 0, 2, 3, 4, 5);

  it('answers unknown paths with 404 {"detail":"Not Found"}, inside and outside /api/v1', async () => {
    for (const path of [
      '/nope',
      '/properties',
      '/properties/content/1/rooms',
      '//',
      '//api/v2/booking',
    ]) {
      const r = await t.get(path, { signedAt });
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, { detail: 'Not Found' }, path);
    }
  });

  it('answers a known path with the wrong method with 405 {"detail":"Method Not Allowed"} and an Allow header', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/price-check?option_id=x', 'GET'],
      ['GET', '/booking?option_id=x', 'POST'],
      ['GET', '/cancel?booking_id=1', 'DELETE'],
      ['DELETE', '/retrieve?booking_id=1', 'GET'],
      ['PUT', '/properties/content/1001', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await t.call(method, path, { signedAt });
      assert.equal(r.status, 405, `${method} ${path}`);
      assert.deepEqual(r.body, { detail: 'Method Not Allowed' });
      assert.equal(r.headers.allow, allow);
    }
  });

  it('redirects with 307 to the path with or without the trailing slash, as Starlette does', async () => {
    const list = await t.get('/properties/content?country_code=IT', { signedAt });
    assert.equal(list.status, 307);
    assert.match(
      String(list.headers.location),
      /\/api\/v1\/properties\/content\/\?country_code=IT$/,
    );
    const detail = await t.get('/properties/content/1001/', { signedAt });
    assert.equal(detail.status, 307);
    assert.match(String(detail.headers.location), /\/api\/v1\/properties\/content\/1001$/);
  });

  it('puts a Date header from the server clock and a unique x-request-id on every response', async () => {
    const replies = [
      await t.get('/static_content_reference_list?language=en', { signedAt }),
      await t.get('/nope', { signedAt }),
      await t.call('POST', '/price-check', { signedAt }),
      await t.get('/static_content_reference_list', { signedAt }),
      await t.get('/static_content_reference_list?language=en', { as: null }),
      await t.get('/static_content_reference_list?language=en', { authorization: 'x' }),
      await t.call('DELETE', '/cancel?booking_id=5', { signedAt }),
    ];
    const ids = new Set<string>();
    for (const r of replies) {
      assert.equal(r.headers.date, 'Wed, 02 Jan 2030 03:04:05 GMT', `status ${r.status}`);
      assert.equal(typeof r.headers['x-request-id'], 'string');
      ids.add(String(r.headers['x-request-id']));
    }
    assert.equal(ids.size, replies.length);
  });

  it('answers HEAD on a GET endpoint with the GET status and no body', async () => {
    const r = await t.call('HEAD', '/static_content_reference_list?language=en', { signedAt });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
  });
});

describe('Validation (FastAPI-style 422)', () => {
  let t: TestSim;
  before(async () => {
    t = await startSim({ maxBodyBytes: 64 * 1024 });
  });
  after(() => t.close());

  it('lists every missing availability parameter in declaration order', async () => {
    const r = await t.get('/properties/availability');
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, {
      detail: ['checkin', 'checkout', 'property_id', 'occupancy'].map((name) => ({
        type: 'missing',
        loc: ['query', name],
        msg: 'Field required',
      })),
    });
  });

  it('reads repeated keys as arrays and rejects a comma-joined property_id with int_parsing', async () => {
    const repeated = await t.get(availabilityQuery([1001, 1002]));
    assert.equal(repeated.status, 200);
    assert.deepEqual(
      repeated.body.properties.map((p: { property_id: string }) => p.property_id),
      ['1001', '1002'],
    );
    const joined = await t.get(
      '/properties/availability?checkin=2026-06-01&checkout=2026-06-03&property_id=1001,1002&occupancy=2',
    );
    assert.equal(joined.status, 422);
    assert.deepEqual(only(joined.body), {
      type: 'int_parsing',
      loc: ['query', 'property_id', 0],
      msg: 'Input should be a valid integer, unable to parse string as an integer',
    });
  });

  it('points int_parsing at the index of the bad property id', async () => {
    const r = await t.get(availabilityQuery([1001, 'x', 1003, '']));
    assert.deepEqual(locs(r.body), [
      ['query', 'property_id', 1],
      ['query', 'property_id', 3],
    ]);
  });

  it('accepts 200 property ids and rejects 201 with too_long', async () => {
    const ids = Array.from({ length: 200 }, (_, i) => 1001 + i);
    const ok = await t.get(availabilityQuery(ids));
    assert.equal(ok.status, 200);
    assert.equal(ok.body.properties.length + ok.body.warnings.length, 200);
    const tooMany = await t.get(availabilityQuery([...ids, 1201]));
    assert.equal(tooMany.status, 422);
    const issue = only(tooMany.body);
    assert.equal(issue.type, 'too_long');
    assert.deepEqual(issue.loc, ['query', 'property_id']);
    assert.equal(issue.msg, 'List should have at most 200 items after validation, not 201');
  });

  it('accepts occupancy as adults or adults-ages and rejects anything else at its index', async () => {
    for (const good of ['2', '1', '2-5,7', '3-0,17', '2-0']) {
      assert.equal((await t.get(availabilityQuery([1001], [good]))).status, 200, good);
    }
    for (const bad of ['0', '2-18', '2-', 'two', '2-5;7', '2,3', '-1', '2-5,,7', '10']) {
      const r = await t.get(availabilityQuery([1001], ['2', bad]));
      assert.equal(r.status, 422, bad);
      const issue = only(r.body);
      assert.equal(issue.type, 'value_error', bad);
      assert.deepEqual(issue.loc, ['query', 'occupancy', 1], bad);
    }
  });

  it('rejects invalid dates with pydantic date errors and a checkout not after checkin', async () => {
    const cases: [string, string][] = [
      [
        '2026-13-01',
        'Input should be a valid date or datetime, month value is outside expected range of 1-12',
      ],
      [
        '2026-02-30',
        'Input should be a valid date or datetime, day value is outside expected range',
      ],
      ['tomorrow', 'Input should be a valid date or datetime, input is too short'],
      [
        '2026/06/01',
        'Input should be a valid date or datetime, invalid date separator, expected `-`',
      ],
      [
        '2026-06-01T00:00',
        'Input should be a valid date or datetime, unexpected extra characters at the end of the input',
      ],
    ];
    for (const [checkin, msg] of cases) {
      const r = await t.get(availabilityQuery([1001], ['2'], checkin, '2026-06-20'));
      const issue = only(r.body);
      assert.equal(issue.type, 'date_from_datetime_parsing', checkin);
      assert.deepEqual(issue.loc, ['query', 'checkin']);
      assert.equal(issue.msg, msg);
    }
    for (const checkout of ['2026-06-01', '2026-05-20']) {
      const r = await t.get(availabilityQuery([1001], ['2'], '2026-06-01', checkout));
      assert.equal(r.status, 422);
      const issue = only(r.body);
      assert.equal(issue.type, 'value_error');
      assert.deepEqual(issue.loc, ['query', 'checkout']);
    }
  });

  it('validates the property list query: country code pattern, language and page', async () => {
    const expectIssue = async (query: string, type: string, loc: (string | number)[]) => {
      const r = await t.get(`/properties/content/?${query}`);
      assert.equal(r.status, 422, query);
      const issue = only(r.body);
      assert.equal(issue.type, type, query);
      assert.deepEqual(issue.loc, loc, query);
    };
    await expectIssue('', 'missing', ['query', 'country_code']);
    await expectIssue('country_code=it', 'string_pattern_mismatch', ['query', 'country_code']);
    await expectIssue('country_code=I1', 'string_pattern_mismatch', ['query', 'country_code']);
    await expectIssue('country_code=ITA', 'string_too_long', ['query', 'country_code']);
    await expectIssue('country_code=I', 'string_too_short', ['query', 'country_code']);
    await expectIssue('country_code=IT&language_code=de', 'literal_error', [
      'query',
      'language_code',
    ]);
    await expectIssue('country_code=IT&page=0', 'greater_than_equal', ['query', 'page']);
    await expectIssue('country_code=IT&page=two', 'int_parsing', ['query', 'page']);
    const pattern = await t.get('/properties/content/?country_code=it');
    assert.equal(only(pattern.body).msg, "String should match pattern '^[A-Z]{2}$'");
  });

  it('validates the property detail path id and language', async () => {
    const r = await t.get('/properties/content/abc?language_code=fr');
    assert.equal(r.status, 422);
    assert.deepEqual(locs(r.body), [
      ['path', 'hotel_id'],
      ['query', 'language_code'],
    ]);
  });

  it('requires the reference list language to be en or it', async () => {
    assert.deepEqual(locs((await t.get('/static_content_reference_list')).body), [
      ['query', 'language'],
    ]);
    const fr = await t.get('/static_content_reference_list?language=fr');
    assert.equal(only(fr.body).msg, "Input should be 'en' or 'it'");
  });

  it('requires option_id on price check and booking_id as an integer on cancel and retrieve', async () => {
    assert.deepEqual(locs((await t.get('/price-check')).body), [['query', 'option_id']]);
    for (const path of ['/retrieve?booking_id=abc', '/retrieve?booking_id=1.5', '/retrieve']) {
      const r = await t.get(path);
      assert.equal(r.status, 422, path);
      assert.deepEqual(locs(r.body), [['query', 'booking_id']]);
    }
    const c = await t.call('DELETE', '/cancel?booking_id=12,13');
    assert.equal(only(c.body).type, 'int_parsing');
  });

  it('lists every problem of a booking request, with locations inside the body', async () => {
    const r = await t.call('POST', '/booking', {
      json: {
        room_detail: [{ lead_first_name: 'Ada', lead_last_name: 7 }, 'x', { lead_last_name: '' }],
        phone_number_prefix: '+39',
        email: 'not-an-email',
        custom_fields: { custom_field_1: 'ok', custom_field_11: 'no', custom_field_2: 5 },
      },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(
      r.body.detail.map((d: Issue) => [d.type, d.loc]),
      [
        ['missing', ['query', 'option_id']],
        ['string_type', ['body', 'room_detail', 0, 'lead_last_name']],
        ['model_attributes_type', ['body', 'room_detail', 1]],
        ['missing', ['body', 'room_detail', 2, 'lead_first_name']],
        ['string_too_short', ['body', 'room_detail', 2, 'lead_last_name']],
        ['missing', ['body', 'phone_number']],
        ['value_error', ['body', 'email']],
        ['extra_forbidden', ['body', 'custom_fields', 'custom_field_11']],
        ['string_type', ['body', 'custom_fields', 'custom_field_2']],
      ],
    );
  });

  it('rejects an empty room_detail, a missing body and a non-object body', async () => {
    const empty = await t.call('POST', '/booking?option_id=x', {
      json: bookingBody(1, { room_detail: [] }),
    });
    assert.equal(only(empty.body).type, 'too_short');
    const none = await t.call('POST', '/booking?option_id=x');
    assert.deepEqual(only(none.body), { type: 'missing', loc: ['body'], msg: 'Field required' });
    const array = await t.call('POST', '/booking?option_id=x', { json: [1, 2] });
    assert.deepEqual(only(array.body).loc, ['body']);
    assert.equal(only(array.body).type, 'model_attributes_type');
  });

  it('answers malformed JSON with json_invalid before checking credentials, as FastAPI does', async () => {
    const r = await t.call('POST', '/booking?option_id=x', {
      as: null,
      body: '{"room_detail": [',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 422);
    const issue = only(r.body);
    assert.equal(issue.type, 'json_invalid');
    assert.equal(issue.loc[0], 'body');
    assert.equal(issue.msg, 'JSON decode error');
  });

  it('answers non-UTF-8 bodies and non-JSON content types with 422', async () => {
    const bytes = await t.call('POST', '/booking?option_id=x', {
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bytes.status, 422);
    assert.equal(only(bytes.body).type, 'json_invalid');
    const text = await t.call('POST', '/booking?option_id=x', {
      body: JSON.stringify(bookingBody()),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 422);
    assert.deepEqual(only(text.body).loc, ['body']);
  });

  it('accepts custom_fields as up to ten named strings or as a single field name', async () => {
    const ten = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`custom_field_${i + 1}`, `v${i}`]),
    );
    for (const custom_fields of [ten, 'custom_field_3', null]) {
      const r = await t.call('POST', '/booking?option_id=bk_0_0', {
        json: bookingBody(1, { custom_fields }),
      });
      // Valid body: the request fails only on the (unknown) token.
      assert.deepEqual(
        r.body,
        { detail: 'Invalid or expired option_id' },
        JSON.stringify(custom_fields),
      );
    }
    const wrongName = await t.call('POST', '/booking?option_id=bk_0_0', {
      json: bookingBody(1, { custom_fields: 'custom_field_0' }),
    });
    assert.equal(only(wrongName.body).type, 'literal_error');
  });

  it('answers a body over the limit with 413 and keeps serving', async () => {
    const huge = Buffer.alloc(200 * 1024, 0x61);
    const r = await t.call('POST', '/booking?option_id=x', {
      body: huge,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 413);
    assert.deepEqual(r.body, { detail: 'Request body too large' });
    assert.equal((await t.get('/static_content_reference_list?language=en')).status, 200);
  });

  it('answers a body streamed past the limit without a content-length with 413', async () => {
    async function* chunks() {
      for (let i = 0; i < 100; i++) yield Buffer.alloc(4096, 0x20);
    }
    const res = await request(`${t.url}/booking?option_id=x`, {
      method: 'POST',
      headers: { authorization: sign(ACME, Date.now()), 'content-type': 'application/json' },
      body: Readable.from(chunks()),
    }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    // The server answers 413 and closes; the client may see the answer or the closed socket.
    if (res instanceof Error) assert.match(res.message, /closed|reset|socket|EPIPE/i);
    else {
      assert.equal(res.statusCode, 413);
      await res.body.dump();
    }
    assert.equal((await t.get('/static_content_reference_list?language=en')).status, 200);
  });
});
