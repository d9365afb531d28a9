import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { computeSignature, sign } from '../../src/hotel-api/signing';
import { scenarioOptionId } from '../../tools/simulator';
import type { TestSim } from './helpers';
import {
  ACME,
  DORMANT,
  OTHER,
  availabilityQuery,
  bookingBody,
  manualClock,
  startSim,
} from './helpers';

const MISSING_HEADER = {
  detail: [{ type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' }],
};
const INVALID = { detail: 'Invalid API credentials' };
const INACTIVE = { detail: 'Company account is not active' };

/** One valid request per endpoint (the booking one fails later, on its token, with 422). */
const ENDPOINT_CALLS: readonly { name: string; method: string; path: string; json?: unknown }[] = [
  { name: 'availability', method: 'GET', path: availabilityQuery([1001]) },
  { name: 'content list', method: 'GET', path: '/properties/content/?country_code=IT' },
  { name: 'content detail', method: 'GET', path: '/properties/content/1001' },
  { name: 'reference list', method: 'GET', path: '/static_content_reference_list?language=en' },
  {
    name: 'price check',
    method: 'GET',
    path: `/price-check?option_id=${scenarioOptionId('instant')}`,
  },
  {
    name: 'booking',
    method: 'POST',
    path: '/booking?option_id=bk_1_00000000',
    json: bookingBody(),
  },
  { name: 'cancel', method: 'DELETE', path: '/cancel?booking_id=1' },
  { name: 'retrieve', method: 'GET', path: '/retrieve?booking_id=1' },
];

describe('Authentication', () => {
  const clock = manualClock();
  let t: TestSim;
  before(async () => {
    t = await startSim({ now: clock.now });
  });
  after(() => t.close());

  it('accepts a request signed by an active company within the window', async () => {
    const r = await t.get('/static_content_reference_list?language=en', { signedAt: clock.now() });
    assert.equal(r.status, 200);
  });

  it('answers 422 with the FastAPI missing-header body when the authorization header is absent', async () => {
    const r = await t.get('/static_content_reference_list?language=en', { as: null });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, MISSING_HEADER);
  });

  it('reports the missing header first, together with every other validation problem', async () => {
    const r = await t.get('/static_content_reference_list', { as: null });
    assert.equal(r.status, 422);
    assert.deepEqual(
      r.body.detail.map((d: { loc: unknown }) => d.loc),
      [
        ['header', 'authorization'],
        ['query', 'language'],
      ],
    );
  });

  it('answers 401 Invalid API credentials for an unknown key', async () => {
    const r = await t.get('/static_content_reference_list?language=en', {
      as: { key: 'nobody', secret: 'x' },
      signedAt: clock.now(),
    });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, INVALID);
  });

  it('answers 401 for a signature made with the wrong secret', async () => {
    const r = await t.get('/static_content_reference_list?language=en', {
      as: { key: ACME.key, secret: 'wrong-secret' },
      signedAt: clock.now(),
    });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, INVALID);
  });

  it('answers 401 for a header that is not API-Key=..,Signature=..,Timestamp=..', async () => {
    for (const authorization of [
      '',
      'Bearer abc',
      'API-Key=acme-key',
      'API-Key=a,Signature=b,Timestamp=soon',
    ]) {
      const r = await t.get('/static_content_reference_list?language=en', { authorization });
      assert.equal(r.status, 401, `header ${JSON.stringify(authorization)}`);
      assert.deepEqual(r.body, INVALID);
    }
  });

  it('accepts timestamps up to 5 minutes away from the server clock and rejects older or newer ones', async () => {
    const at = async (offsetSeconds: number) =>
      (
        await t.get('/static_content_reference_list?language=en', {
          signedAt: clock.now() + offsetSeconds * 1000,
        })
      ).status;
    assert.equal(await at(-299), 200);
    assert.equal(await at(299), 200);
    assert.equal(await at(-301), 401);
    assert.equal(await at(301), 401);
  });

  it('answers 403 Company account is not active for a correctly signed inactive company', async () => {
    const r = await t.get('/static_content_reference_list?language=en', {
      as: DORMANT,
      signedAt: clock.now(),
    });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, INACTIVE);
  });

  it('answers 401 rather than 403 when an inactive company signs badly', async () => {
    const r = await t.get('/static_content_reference_list?language=en', {
      as: { key: DORMANT.key, secret: 'wrong' },
      signedAt: clock.now(),
    });
    assert.equal(r.status, 401);
  });

  it('requires authentication on every endpoint', async () => {
    for (const c of ENDPOINT_CALLS) {
      const missing = await t.call(c.method, c.path, {
        as: null,
        ...(c.json ? { json: c.json } : {}),
      });
      assert.equal(missing.status, 422, `${c.name} without header`);
      assert.deepEqual(missing.body.detail[0], MISSING_HEADER.detail[0], c.name);
      const bad = await t.call(c.method, c.path, {
        as: { key: ACME.key, secret: 'wrong' },
        signedAt: clock.now(),
        ...(c.json ? { json: c.json } : {}),
      });
      assert.equal(bad.status, 401, `${c.name} with a bad signature`);
      const inactive = await t.call(c.method, c.path, {
        as: DORMANT,
        signedAt: clock.now(),
        ...(c.json ? { json: c.json } : {}),
      });
      assert.equal(inactive.status, 403, `${c.name} for an inactive company`);
      const ok = await t.call(c.method, c.path, {
        signedAt: clock.now(),
        ...(c.json ? { json: c.json } : {}),
      });
      assert.ok([200, 202, 404, 422].includes(ok.status), `${c.name} signed: ${ok.status}`);
      assert.notEqual(ok.status, 401);
    }
  });

  it('still enforces the window on a header it has verified before', async () => {
    const authorization = sign(OTHER, clock.now());
    const first = await t.get('/static_content_reference_list?language=en', { authorization });
    assert.equal(first.status, 200);
    clock.advance(6 * 60_000);
    const later = await t.get('/static_content_reference_list?language=en', { authorization });
    assert.equal(later.status, 401);
    clock.advance(-6 * 60_000);
  });

  it('follows company changes at runtime: new keys, new secrets, deactivation and revocation', async () => {
    const path = '/static_content_reference_list?language=en';
    const fresh = { key: 'fresh-key', secret: 'fresh-secret' };
    assert.equal((await t.get(path, { as: fresh, signedAt: clock.now() })).status, 401);
    t.sim.upsertCompany({ ...fresh, active: true });
    const header = sign(fresh, clock.now());
    assert.equal((await t.get(path, { authorization: header })).status, 200);
    t.sim.upsertCompany({ key: fresh.key, active: false });
    assert.equal((await t.get(path, { authorization: header })).status, 403);
    t.sim.upsertCompany({ key: fresh.key, active: true, secret: 'rotated' });
    // The header verified a moment ago was signed with the old secret: no longer valid.
    assert.equal((await t.get(path, { authorization: header })).status, 401);
    assert.equal(
      (await t.get(path, { as: { key: fresh.key, secret: 'rotated' }, signedAt: clock.now() }))
        .status,
      200,
    );
    assert.equal(t.sim.revokeCompany(fresh.key), true);
    assert.equal(
      (await t.get(path, { as: { key: fresh.key, secret: 'rotated' }, signedAt: clock.now() }))
        .status,
      401,
    );
  });

  it('counts authentication failures by reason', async () => {
    t.sim.reset();
    const path = '/static_content_reference_list?language=en';
    await t.get(path, { as: null });
    await t.get(path, { authorization: 'garbage' });
    await t.get(path, { as: { key: 'nobody', secret: 'x' }, signedAt: clock.now() });
    await t.get(path, { as: { key: ACME.key, secret: 'wrong' }, signedAt: clock.now() });
    await t.get(path, { signedAt: clock.now() - 3_600_000 });
    await t.get(path, { as: DORMANT, signedAt: clock.now() });
    const { authFailures } = t.sim.requests();
    assert.deepEqual(authFailures, {
      total: 6,
      byReason: {
        missing: 1,
        malformed: 1,
        'unknown-key': 1,
        'bad-signature': 1,
        expired: 1,
        inactive: 1,
      },
    });
  });

  it('verifies with the HMAC of key, secret and timestamp keyed by the secret', async () => {
    const ts = Math.floor(clock.now() / 1000);
    const authorization = `API-Key=${ACME.key},Signature=${computeSignature(ACME.key, ACME.secret, ts)},Timestamp=${ts}`;
    assert.equal(
      (await t.get('/static_content_reference_list?language=it', { authorization })).status,
      200,
    );
    const upper = authorization.replace(
      /Signature=([0-9a-f]+)/,
      (_m, s: string) => `Signature=${s.toUpperCase()}`,
    );
    assert.equal(
      (await t.get('/static_content_reference_list?language=it', { authorization: upper })).status,
      401,
    );
  });
});
