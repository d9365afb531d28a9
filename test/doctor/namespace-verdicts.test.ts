/**
 * Verdicts of `doctor namespace`, without a server: the connection and its security, the
 * namespace, search attributes (listed, or only queried where listing is refused), retention,
 * workers polling (recently, both kinds of task), the payload keys against a recent input, and
 * the codec server. Each deviation fails in one line that says what to change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckResult } from '../../src/doctor/check-result';
import { doctorExitCode } from '../../src/doctor/check-result';
import {
  MIN_RETENTION_DAYS,
  namespaceVerdict,
  retentionVerdict,
  searchAttributesVerdict,
  temporalConnectionVerdict,
  temporalReleaseVerdict,
} from '../../src/doctor/namespace-verdicts';
import { codecServerVerdict, payloadKeysVerdict } from '../../src/doctor/payload-verdicts';
import { POLLER_FRESH_MS, pollersVerdict } from '../../src/doctor/poller-verdicts';
import { PRODUCT_SEARCH_ATTRIBUTES } from '../../src/namespace/search-attribute-plan';

const TARGET = { namespace: 'bookings', address: 'temporal.internal:7233' };
const DAY = 86_400;

/** `r`'s consequence, which every fail has. */
const breaks = (r: CheckResult) => (r.verdict === 'ok' ? '' : (r.breaks ?? ''));

describe('temporal-release', () => {
  const at = (serverVersion: string, address = TARGET.address) =>
    temporalReleaseVerdict({ address, serverVersion });
  it('is ok on each supported release, as the server reports it', () => {
    for (const v of ['1.30.9', '1.31.2', '1.32.2', '1.32.0']) {
      const r = at(v);
      assert.equal(r.verdict, 'ok', v);
      assert.match(
        r.evidence,
        new RegExp(`Temporal ${v.replace(/\./g, '\\.')}: a supported release \\(1\\.30–1\\.32\\)`),
      );
    }
  });
  it('on a supported release that leaves a setting off by default, says which (it cannot see it)', () => {
    assert.deepEqual(at('1.30.9').info, [
      'task-queue priority (new bookings ahead of due polls) needs matching.useNewMatcher=true in its dynamic config (the default from 1.31)',
    ]);
    assert.equal(at('1.32.2').info, undefined);
  });
  it('warns below them, naming the upgrade path and each setting the product relies on', () => {
    const r = at('1.29.1');
    assert.equal(r.verdict, 'warn');
    assert.match(r.evidence, /1\.29\.1 is older than the supported releases/);
    assert.match(breaks(r), /one minor release at a time/);
    assert.match(breaks(r), /frontend\.enableExecuteMultiOperation=true/);
    assert.match(breaks(r), /matching\.useNewMatcher=true/);
    assert.doesNotMatch(breaks(at('1.28.0')), /undefined/);
  });
  it('warns above them and on a version it cannot read', () => {
    assert.match(at('1.33.0').evidence, /newer than the releases this version was run on/);
    assert.equal(at('').verdict, 'warn');
    assert.equal(at('garbage').verdict, 'warn');
  });
  it('Temporal Cloud is supported, whatever version it reports', () => {
    assert.equal(at('1.27.0-cloud', 'bookings.a1b2c.tmprl.cloud:7233').verdict, 'ok');
  });
});

describe('temporal-connection', () => {
  const at = (facts: Parameters<typeof temporalConnectionVerdict>[0]['facts'], tls = true) =>
    temporalConnectionVerdict({
      address: 'temporal.internal:7233',
      security: tls ? 'TLS, API key, system CAs' : 'plaintext',
      tls,
      facts,
    });

  it('is ok over TLS and says with what security, never a key', () => {
    const { result, stop } = at({ kind: 'connected' });
    assert.equal(result.verdict, 'ok');
    assert.match(result.evidence, /TLS, API key/);
    assert.equal(stop, undefined);
  });

  it('warns of plaintext to a remote server, not on loopback', () => {
    assert.equal(at({ kind: 'connected' }, false).result.verdict, 'warn');
    assert.match(breaks(at({ kind: 'connected' }, false).result), /TEMPORAL_TLS/);
    const local = temporalConnectionVerdict({
      address: 'localhost:7233',
      security: 'plaintext',
      tls: false,
      facts: { kind: 'connected' },
    });
    assert.equal(local.result.verdict, 'ok');
  });

  it('stops the doctor, exit 2, when unreachable or refused', () => {
    const unreachable = at({ kind: 'unreachable', reason: 'ECONNREFUSED' });
    assert.equal(unreachable.result.verdict, 'fail');
    assert.match(unreachable.result.evidence, /ECONNREFUSED/);
    assert.deepEqual(unreachable.stop, { kind: 'unreachable', check: 'temporal-connection' });
    const refused = at({ kind: 'refused', line: 'set TEMPORAL_TLS_CA to the CA that issued it' });
    assert.equal(refused.stop?.kind, 'unauthenticated');
    assert.equal(doctorExitCode({ checks: [refused.result], stop: refused.stop }), 2);
  });
});

describe('namespace', () => {
  it('is ok when registered; a missing one fails saying how to create it, and does not stop', () => {
    assert.equal(
      namespaceVerdict(TARGET, { kind: 'found', state: 'REGISTERED', retentionSeconds: DAY }).result
        .verdict,
      'ok',
    );
    const missing = namespaceVerdict(TARGET, { kind: 'not-found', details: 'not found' });
    assert.equal(missing.result.verdict, 'fail');
    assert.match(
      breaks(missing.result),
      /temporal operator namespace create .*--namespace bookings --retention 30d/,
    );
    assert.match(breaks(missing.result), /hotel-booking setup/);
    assert.equal(missing.stop, undefined);
  });

  it('a refusal of this identity stops the doctor; a deprecated namespace fails', () => {
    const refused = namespaceVerdict(TARGET, {
      kind: 'refused',
      code: 'PERMISSION_DENIED',
      details: 'Request unauthorized.',
    });
    assert.equal(refused.stop?.kind, 'unauthenticated');
    assert.match(breaks(refused.result), /TEMPORAL_API_KEY/);
    const gone = namespaceVerdict(TARGET, {
      kind: 'found',
      state: 'DEPRECATED',
      retentionSeconds: DAY,
    });
    assert.equal(gone.result.verdict, 'fail');
  });
});

describe('search-attributes', () => {
  const all = () =>
    Object.fromEntries(PRODUCT_SEARCH_ATTRIBUTES.map((s) => [s.name, s.type as string]));

  it('is ok when every one is registered with its type, naming them', () => {
    const r = searchAttributesVerdict(TARGET, { kind: 'listed', existing: all() });
    assert.equal(r.verdict, 'ok');
    assert.match(
      r.evidence,
      new RegExp(
        `all ${PRODUCT_SEARCH_ATTRIBUTES.length} .*BookingPhase Keyword.*SupplierBookingId Int`,
      ),
    );
  });

  it('names a missing one and says to run setup', () => {
    const existing = all();
    delete existing.Reconfirmation;
    const r = searchAttributesVerdict(TARGET, { kind: 'listed', existing });
    assert.equal(r.verdict, 'fail');
    assert.equal(r.evidence, 'missing: Reconfirmation');
    assert.match(breaks(r), /Run `hotel-booking setup`/);
  });

  it('names one of another type with both types, and that setup cannot fix it', () => {
    const r = searchAttributesVerdict(TARGET, {
      kind: 'listed',
      existing: { ...all(), CheckInDate: 'KEYWORD' },
    });
    assert.equal(r.verdict, 'fail');
    assert.match(r.evidence, /CheckInDate is registered as Keyword; the product writes Datetime/);
    assert.match(breaks(r), /cannot be changed in place/);
  });

  it('where listing is refused, fails on one a query refuses and warns that types are unverified', () => {
    const refused = searchAttributesVerdict(TARGET, {
      kind: 'queried',
      listRefusal: 'PERMISSION_DENIED: Request unauthorized.',
      refused: ['OrderId'],
    });
    assert.equal(refused.verdict, 'fail');
    assert.match(refused.evidence, /OrderId.*PERMISSION_DENIED/);
    const accepted = searchAttributesVerdict(TARGET, {
      kind: 'queried',
      listRefusal: 'PERMISSION_DENIED: Request unauthorized.',
      refused: [],
    });
    assert.equal(accepted.verdict, 'warn');
    assert.match(accepted.evidence, /types were not verified/);
  });
});

describe('retention', () => {
  it(`is ok from ${MIN_RETENTION_DAYS} days`, () => {
    assert.equal(retentionVerdict(TARGET, 30 * DAY).verdict, 'ok');
    assert.equal(retentionVerdict(TARGET, 90 * DAY).verdict, 'ok');
  });

  it('fails below, saying how long it is and the command that sets 30 days', () => {
    const r = retentionVerdict(TARGET, 1 * DAY);
    assert.equal(r.verdict, 'fail');
    assert.match(r.evidence, /retention is 1 day;/);
    assert.match(
      breaks(r),
      /temporal operator namespace update --address temporal\.internal:7233 --namespace bookings --retention 30d/,
    );
    assert.match(retentionVerdict(TARGET, 3 * 3600).evidence, /retention is 3\.0 h/);
  });

  it('warns when the namespace reports none', () => {
    assert.equal(retentionVerdict(TARGET, undefined).verdict, 'warn');
  });
});

describe('booking-workers and order-events-workers', () => {
  const now = 1_800_000_000_000;
  const facts = (workflow: number[], activity: number[]) => ({
    taskQueue: 'hotel-booking',
    bookingTaskQueue: 'hotel-booking',
    namespace: 'bookings',
    workflow: workflow.map((ago, i) => ({ identity: `w${i}@host`, lastAccessMs: now - ago })),
    activity: activity.map((ago, i) => ({ identity: `w${i}@host`, lastAccessMs: now - ago })),
    nowMs: now,
  });
  const required = { yes: true, why: '' };

  it('is ok when a worker polls workflow and activity tasks, naming it', () => {
    const r = pollersVerdict('booking-workers', facts([1_000], [2_000]), required);
    assert.equal(r.verdict, 'ok');
    assert.match(r.evidence, /1 worker\(s\) poll task queue 'hotel-booking': w0@host/);
  });

  it('fails when none polls, or the last one stopped a while ago, saying what to start', () => {
    const none = pollersVerdict('booking-workers', facts([], []), required);
    assert.equal(none.verdict, 'fail');
    assert.match(
      none.evidence,
      /no worker polls task queue 'hotel-booking' in namespace 'bookings'/,
    );
    assert.match(breaks(none), /TEMPORAL_NAMESPACE=bookings TEMPORAL_TASK_QUEUE=hotel-booking/);
    const stale = POLLER_FRESH_MS + 5 * 60_000;
    const gone = pollersVerdict('booking-workers', facts([stale], [stale]), required);
    assert.equal(gone.verdict, 'fail');
    assert.match(gone.evidence, /last seen 7 min ago/);
  });

  it('fails when only one kind of task is polled', () => {
    const r = pollersVerdict('booking-workers', facts([1_000], []), required);
    assert.equal(r.verdict, 'fail');
    assert.match(r.evidence, /none for activity tasks/);
  });

  it('order events: none polling is fine when they are off, a failure when they are on', () => {
    const q = { ...facts([], []), taskQueue: 'hotel-booking-order-events' };
    const off = pollersVerdict('order-events-workers', q, {
      yes: false,
      why: 'order events are off',
    });
    assert.equal(off.verdict, 'ok');
    const on = pollersVerdict('order-events-workers', q, required);
    assert.equal(on.verdict, 'fail');
    assert.match(breaks(on), /ORDER_EVENTS_URL/);
  });
});

describe('payload-keys', () => {
  const verdict = (facts: Parameters<typeof payloadKeysVerdict>[0]['facts'], development = false) =>
    payloadKeysVerdict({ taskQueue: 'hotel-booking', keyIds: ['k2', 'k1'], development, facts });

  it('says "no recent workflow to check" when there is none (a warning, not a failure)', () => {
    const r = verdict({ kind: 'none' });
    assert.equal(r.verdict, 'warn');
    assert.match(r.evidence, /no recent workflow to check on task queue 'hotel-booking'/);
  });

  it('is ok when the input decodes, noting a retired key still in use', () => {
    const r = verdict({ kind: 'decoded', workflowId: 'booking-o1', keyId: 'k1' });
    assert.equal(r.verdict, 'ok');
    assert.match(r.evidence, /booking-o1.*key id "k1".*\("k2", "k1"\)/);
    assert.deepEqual(r.info, ['new payloads are encrypted with "k2" (key rotation)']);
  });

  it('warns when it is the public development key', () => {
    const r = verdict({ kind: 'decoded', workflowId: 'booking-o1', keyId: 'dev-insecure' }, true);
    assert.equal(r.verdict, 'warn');
    assert.match(r.evidence, /PAYLOAD_ENCRYPTION_KEYS/);
  });

  it('fails naming the key id that is not configured, and the configured ones', () => {
    const r = verdict({ kind: 'unknown-key', workflowId: 'booking-o1', keyId: 'k0' });
    assert.equal(r.verdict, 'fail');
    assert.match(
      r.evidence,
      /key id "k0", which is not among PAYLOAD_ENCRYPTION_KEYS' ids \("k2", "k1"\)/,
    );
    assert.match(breaks(r), /Add that key/);
  });

  it('fails when the key under that id is another one, and when the input is in clear', () => {
    const wrong = verdict({ kind: 'decrypt-failed', workflowId: 'booking-o1', keyId: 'k1' });
    assert.equal(wrong.verdict, 'fail');
    assert.match(wrong.evidence, /"k1", which is configured, but that key does not decrypt it/);
    const clear = verdict({ kind: 'clear', workflowId: 'booking-o1' });
    assert.equal(clear.verdict, 'fail');
    assert.match(clear.evidence, /is not encrypted/);
  });
});

describe('codec-server', () => {
  const url = 'https://codec.example';
  const refused = { kind: 'answered' as const, status: 401 };

  it('is ok when it refuses a call without a token and decodes ours with the token', () => {
    const r = codecServerVerdict({
      url,
      configured: true,
      unauthenticated: refused,
      authenticated: { kind: 'answered', status: 200, decoded: true },
    });
    assert.equal(r.verdict, 'ok');
  });

  it('fails when it decodes for anyone', () => {
    const r = codecServerVerdict({
      url,
      configured: true,
      unauthenticated: { kind: 'answered', status: 200 },
    });
    assert.equal(r.verdict, 'fail');
    assert.match(breaks(r), /anyone who reaches it can decrypt guest data/);
  });

  it('unreachable: fails when CODEC_SERVER_URL names it, warns when only the default was tried', () => {
    const unreachable = { kind: 'unreachable' as const, reason: 'ECONNREFUSED' };
    const named = codecServerVerdict({ url, configured: true, unauthenticated: unreachable });
    assert.equal(named.verdict, 'fail');
    assert.match(named.evidence, /ECONNREFUSED/);
    const guessed = codecServerVerdict({ url, configured: false, unauthenticated: unreachable });
    assert.equal(guessed.verdict, 'warn');
    assert.match(guessed.evidence, /CODEC_SERVER_URL is not set/);
  });

  it('fails when it refuses our token or lacks our keys, saying which', () => {
    const token = codecServerVerdict({
      url,
      configured: true,
      unauthenticated: refused,
      authenticated: { kind: 'answered', status: 401 },
    });
    assert.match(breaks(token), /refuses CODEC_SERVER_TOKEN/);
    const keys = codecServerVerdict({
      url,
      configured: true,
      unauthenticated: refused,
      authenticated: { kind: 'answered', status: 422 },
    });
    assert.match(breaks(keys), /same PAYLOAD_ENCRYPTION_KEYS/);
  });

  it('without a token here, is ok on the refusal and says the decode was not tried', () => {
    const r = codecServerVerdict({ url, configured: true, unauthenticated: refused });
    assert.equal(r.verdict, 'ok');
    assert.match(r.info?.[0] ?? '', /CODEC_SERVER_TOKEN is not set/);
  });

  it('fails on another answer than 401 without a token (not a codec server there)', () => {
    const r = codecServerVerdict({
      url,
      configured: true,
      unauthenticated: { kind: 'answered', status: 404 },
    });
    assert.equal(r.verdict, 'fail');
    assert.match(breaks(r), /CODEC_SERVER_URL/);
  });
});
