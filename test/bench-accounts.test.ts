/**
 * The bench's `accounts` part (bench/accounts/): its figures from the samples (the measure of
 * test/accounts/account-cap.test.ts), its rows under their names, its settings, and its accounts
 * as the worker process loads them (SUPPLIER_ACCOUNTS through the product's loader).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  accountsFigures,
  callsEachSecond,
  capFigures,
  isolationResult,
  type AccountsResult,
  type CallSample,
  type IsolationRound,
} from '../bench/accounts/result';
import { reported, targetsRecord } from '../bench/report/targets';
import { loadBenchAccounts } from '../bench/shared/account-workers';
import { settingsFrom } from '../bench/shared/config';
import { benchHotelApiConfig, supplierAccountsJson } from '../bench/shared/supplier';

/** Samples every 50 ms: none for 1 s, then `burst` at once, then `perSecond` evenly for `s` s. */
function samples(burst: number, perSecond: number, s: number): CallSample[] {
  const out: CallSample[] = [];
  for (let at = 0; at <= 1000 + s * 1000; at += 50) {
    const calls = at < 1000 ? 0 : burst + Math.floor(((at - 1000) * perSecond) / 1000);
    out.push({ at, calls });
  }
  return out;
}

const round = (ratio: number, order: IsolationRound['order']): IsolationRound => ({
  order,
  aloneBookingsPerSecond: 20,
  duringBookingsPerSecond: 20 * ratio,
  ratio,
  aHangingMin: 4,
  aHangingMean: 4,
  aOutcomes: { CONFIRMED: 12 },
  failures: 0,
});

describe('bench accounts part', () => {
  it("the cap figure: calls beyond the server's burst (cap + 1) per second from the last idle sample, ÷ the cap", () => {
    const f = capFigures(samples(11, 10, 10), 10)!;
    assert.equal(f.calls, 111);
    assert.equal(f.seconds, 10.05);
    assert.equal(f.steadyRatio, Math.round(((111 - 11) / 10.05 / 10) * 1000) / 1000);
    // The worst second: the burst and the calls of the 950 ms after it, ÷ 2 × cap + 1.
    assert.equal(f.worst1sCalls, 20);
    assert.equal(f.worst1sRatio, 0.952);
    assert.ok(capFigures(samples(11, 12, 10), 10)!.steadyRatio > 1.05, 'over the cap misses');
    assert.equal(capFigures([{ at: 0, calls: 0 }], 10), undefined);
  });

  it('calls in each second from the last idle sample', () => {
    assert.deepEqual(callsEachSecond(samples(11, 10, 3)), [20, 10, 10, 1]);
    assert.deepEqual(callsEachSecond([{ at: 0, calls: 0 }]), []);
  });

  it('its two rows with targets and its reported figure, under their names', () => {
    const rounds = [
      round(0.9, 'alone-first'),
      round(1.02, 'hung-first'),
      round(0.97, 'alone-first'),
    ];
    const isolation = isolationResult(rounds, {
      bookings: 100,
      concurrency: 20,
      hungSlots: 4,
      hungOrders: 12,
      supplierLatencyMs: 20,
    });
    assert.deepEqual(isolation.ratio, { median: 0.97, min: 0.9, max: 1.02 });
    const cap = { ...capFigures(samples(11, 10, 10), 10)!, capPerSecond: 10 };
    const r = { accounts: { isolation, cap } as unknown as AccountsResult };
    const t = targetsRecord(r);
    assert.deepEqual(
      t['Confirmed bookings/s through account B while account A hangs ÷ B alone, median of rounds'],
      { value: 0.97, target: '≥ 0.95', holds: true },
    );
    assert.deepEqual(
      t[
        "Account cap: calls/s at the supplier beyond the server's burst ÷ the account's maxCallsPerSecond, three workers"
      ],
      { value: cap.steadyRatio, target: '≤ 1.05', holds: true },
    );
    assert.equal(
      reported(r)[
        'Account cap: worst 1-second window of calls at the supplier ÷ (2 × cap + 1), three workers'
      ],
      0.952,
    );
    assert.equal(
      accountsFigures(r.accounts)['Accounts: B while A hangs ÷ B alone, each round'],
      '0.9 / 1.02 / 0.97',
    );
  });

  it('settings: 5 rounds, 100 bookings a window at --quick (300 full), 20 in flight, A with 4 slots, C capped at 10/s', () => {
    const quick = settingsFrom(['--quick'], {}).accounts;
    const full = settingsFrom([], {}).accounts;
    assert.deepEqual(
      [quick.rounds, quick.bookings, quick.concurrency, quick.hungSlots, quick.capPerSecond],
      [5, 100, 20, 4, 10],
    );
    assert.deepEqual([full.bookings, full.capSeconds, quick.capSeconds], [300, 30, 12]);
    assert.equal(settingsFrom([], { BENCH_ACCOUNTS_CAP: '5' }).accounts.capPerSecond, 5);
    assert.throws(
      () => settingsFrom([], { BENCH_ACCOUNTS_ROUNDS: '0' }),
      /^Error: BENCH_ACCOUNTS_ROUNDS must be a whole number of at least 1$/,
    );
  });

  it("the workers' SUPPLIER_ACCOUNTS load through the product's loader: each account's company, cap and slots", () => {
    const url = 'http://127.0.0.1:4010';
    const json = supplierAccountsJson(
      [
        { id: 'a', company: { key: 'ka', secret: 'sa-0123456789' }, maxConcurrentCalls: 4 },
        { id: 'c', company: { key: 'kc', secret: 'sc-0123456789' }, maxCallsPerSecond: 10 },
      ],
      url,
    );
    const accounts = loadBenchAccounts(json, benchHotelApiConfig(url));
    assert.deepEqual(
      accounts.map((a) => [a.id, a.hotelApi.key, a.maxConcurrentCalls, a.maxCallsPerSecond]),
      [
        ['default', 'bench-key', 100, 0],
        ['a', 'ka', 4, 0],
        ['c', 'kc', 100, 10],
      ],
    );
    assert.throws(() => loadBenchAccounts('[{"id":"a"}]', benchHotelApiConfig(url)), /baseUrl/);
  });
});
