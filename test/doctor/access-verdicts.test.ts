/**
 * Verdicts on getting in, without a server: reaching the supplier, credentials (and the retry
 * after a CLOCK_SKEW), redirects, the clock against the signing window, and refusals that must
 * take the fail-fast path.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clockVerdict,
  credentialsVerdict,
  reachableVerdict,
  redirectsVerdict,
  refusalVerdict,
} from '../../src/doctor/access-verdicts';
import { HotelApiError, classifyResponse } from '../../src/hotel-api';

const refused = (statusCode: number, body: unknown = { detail: 'x' }, skewMs?: number) =>
  classifyResponse({
    endpoint: '/static_content_reference_list',
    method: 'GET',
    statusCode,
    headers: {},
    body,
    ...(skewMs === undefined ? {} : { signedSkewMs: skewMs }),
    clockCorrection: true,
  });

const networkError = new HotelApiError({
  code: 'CONNECTION_FAILED_BEFORE_SEND',
  endpoint: '/static_content_reference_list',
  method: 'GET',
  message: 'connect ECONNREFUSED',
});

describe('reachable', () => {
  it('fails when no answer came, naming the origin and saying nothing works', () => {
    const r = reachableVerdict('https://api.example.com/x', { kind: 'error', error: networkError });
    assert.equal(r.verdict, 'fail');
    assert.match(r.evidence, /https:\/\/api\.example\.com.*CONNECTION_FAILED_BEFORE_SEND/);
    assert.ok(r.verdict === 'fail' && /nothing can be searched/.test(r.breaks));
  });

  it('is ok over HTTPS and on loopback HTTP, and warns about plain HTTP elsewhere', () => {
    assert.equal(reachableVerdict('https://a.example', { kind: 'answered' }).verdict, 'ok');
    assert.equal(reachableVerdict('http://127.0.0.1:8080', { kind: 'answered' }).verdict, 'ok');
    const clear = reachableVerdict('http://supplier.example', { kind: 'answered' });
    assert.equal(clear.verdict, 'warn');
    assert.match(clear.evidence, /plain HTTP/);
  });
});

describe('credentials', () => {
  it('are ok when the first call was answered', () => {
    assert.equal(credentialsVerdict({ kind: 'answered' }, undefined).result.verdict, 'ok');
  });

  it('fail and stop the doctor on a 401 or a 403', () => {
    for (const status of [401, 403]) {
      const v = credentialsVerdict({ kind: 'error', error: refused(status) }, undefined);
      assert.equal(v.result.verdict, 'fail');
      assert.deepEqual(v.stop, { kind: 'unauthenticated', check: 'credentials' });
    }
  });

  it('are ok after a CLOCK_SKEW when the corrected retry is accepted, and fail when it is not', () => {
    const skew = { kind: 'error' as const, error: refused(401, { detail: 'x' }, 600_000) };
    assert.equal(skew.error.code, 'CLOCK_SKEW');
    const retried = credentialsVerdict(skew, { kind: 'answered' });
    assert.equal(retried.result.verdict, 'ok');
    assert.equal(retried.stop, undefined);
    const still = credentialsVerdict(skew, skew);
    assert.equal(still.result.verdict, 'fail');
    assert.match(still.result.evidence, /clock/);
  });
});

describe('redirects', () => {
  it('fails naming each redirected path and where it pointed', () => {
    const r = redirectsVerdict([
      { path: '/static_content_reference_list', statusCode: 200 },
      { path: '/properties/content/', statusCode: 308, location: 'https://b.example/v2' },
    ]);
    assert.equal(r.verdict, 'fail');
    assert.match(
      r.evidence,
      /GET \/properties\/content\/ answered 308 to https:\/\/b\.example\/v2/,
    );
    assert.doesNotMatch(r.evidence, /static_content/);
  });

  it('is ok when nothing redirects', () => {
    assert.equal(redirectsVerdict([{ path: '/price-check', statusCode: 422 }]).verdict, 'ok');
  });
});

describe('clock', () => {
  const local = Date.parse('2027-01-01T12:00:00Z');
  const date = (offsetS: number) => new Date(local + offsetS * 1000).toUTCString();

  it('is ok within a minute', () => {
    const r = clockVerdict({ dateHeader: date(5), localMs: local, clockCorrection: false });
    assert.equal(r.verdict, 'ok');
    assert.match(r.evidence, /\+5\.5 s/);
  });

  it('warns inside the window without correction, saying how much drift is left', () => {
    const r = clockVerdict({ dateHeader: date(200), localMs: local, clockCorrection: false });
    assert.equal(r.verdict, 'warn');
    assert.ok(r.verdict === 'warn' && /further 100 s/.test(r.breaks ?? ''));
  });

  it('fails beyond the window without correction, and warns with it', () => {
    const off = clockVerdict({ dateHeader: date(600), localMs: local, clockCorrection: false });
    assert.equal(off.verdict, 'fail');
    const on = clockVerdict({ dateHeader: date(600), localMs: local, clockCorrection: true });
    assert.equal(on.verdict, 'warn');
    assert.match(on.evidence, /covers the difference/);
  });

  it('warns when the Date header is missing or unreadable', () => {
    for (const dateHeader of [undefined, 'yesterday']) {
      const r = clockVerdict({ dateHeader, localMs: local, clockCorrection: true });
      assert.equal(r.verdict, 'warn');
    }
  });
});

describe('refusals provoked on purpose', () => {
  it('are ok when classified as the client expects: not retried, not ambiguous', () => {
    const wrong = refusalVerdict('wrong-secret', { statusCode: 401, classified: refused(401) });
    assert.equal(wrong.verdict, 'ok');
    const inactive = refusalVerdict('inactive-account', {
      statusCode: 403,
      classified: refused(403),
    });
    assert.equal(inactive.verdict, 'ok');
  });

  it('fail when the refusal would be retried or read as ambiguous', () => {
    const r = refusalVerdict('wrong-secret', { statusCode: 503, classified: refused(503) });
    assert.equal(r.verdict, 'fail');
    assert.match(r.evidence, /expects AUTH_INVALID/);
  });

  it('warn when a wrong secret is accepted', () => {
    const r = refusalVerdict('wrong-secret', { statusCode: 200 });
    assert.equal(r.verdict, 'warn');
    assert.match(r.evidence, /does not check signatures/);
  });
});
