/**
 * The doctor over accounts, pure: which accounts a run checks, each account's options and the
 * settings its advice names, the run's exit code (the worst), its `--json` shape (one account:
 * the shape from before accounts too) and its sections for people.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDoctorRun } from '../../src/cli/doctor-render';
import type { SupplierAccount } from '../../src/config/accounts';
import { accountSettings, DEFAULT_ACCOUNT_SETTINGS } from '../../src/doctor/account-settings';
import { ok } from '../../src/doctor/check-result';
import type { AccountReport, DoctorRunReport } from '../../src/doctor/run-accounts';
import { accountsToCheck, doctorJson, optionsFor, worstExit } from '../../src/doctor/run-accounts';
import type { DoctorOptions } from '../../src/doctor/run-doctor';

const api = {
  baseUrl: 'https://api.supplier.example',
  key: 'k',
  secret: 's',
  timeouts: { bookingMs: 1, readMs: 1, searchMs: 1 },
  clockCorrection: true,
  maxConnections: 1,
};
const acc = (id: string, over: Partial<SupplierAccount> = {}): SupplierAccount => ({
  id,
  enabled: true,
  hotelApi: api,
  maxCallsPerSecond: 0,
  maxConcurrentCalls: 1,
  ...over,
});
const ACCOUNTS = [acc('default', { maxCallsPerSecond: 5 }), acc('eu', { maxCallsPerSecond: 20 })];

const OPTIONS: DoctorOptions = {
  country: 'IT',
  search: { checkin: '2030-05-10', checkout: '2030-05-12', occupancy: ['2'] },
  maxCallsPerSecond: 5,
  book: { orderId: 'doctor-x', orderIdField: 'custom_field_10' },
};

const report = (id: string, exitCode: 0 | 1 | 2, enabled = true): AccountReport => ({
  id,
  enabled,
  supplier: 'https://api.supplier.example',
  checks: [ok('reachable', 'answered')],
  skipped: [],
  exitCode,
});

describe('the accounts a doctor run checks', () => {
  it('every configured account by default, the default one first', () => {
    const { accounts, issues } = accountsToCheck({ accounts: ACCOUNTS, given: [] });
    assert.deepEqual(issues, []);
    assert.deepEqual(
      accounts?.map((a) => a.id),
      ['default', 'eu'],
    );
  });

  it('--supplier picks one, a disabled one too', () => {
    const disabled = [ACCOUNTS[0] as SupplierAccount, acc('eu', { enabled: false })];
    const { accounts } = accountsToCheck({ supplier: 'eu', accounts: disabled, given: [] });
    assert.deepEqual(
      accounts?.map((a) => [a.id, a.enabled]),
      [['eu', false]],
    );
  });

  it('an unknown --supplier names the flag and the configured ids', () => {
    const { accounts, issues } = accountsToCheck({
      supplier: 'asia',
      accounts: ACCOUNTS,
      given: [],
    });
    assert.equal(accounts, undefined);
    assert.deepEqual(issues, [
      { field: '--supplier', message: 'no account "asia" (configured: default, eu)' },
    ]);
  });

  it("a flag naming one account's things needs --supplier with several accounts, not with one", () => {
    const several = accountsToCheck({ accounts: ACCOUNTS, given: ['--option', '--inactive-key'] });
    assert.equal(several.accounts, undefined);
    assert.deepEqual(
      several.issues.map((i) => i.field),
      ['--option', '--inactive-key'],
    );
    const one = accountsToCheck({ accounts: ACCOUNTS.slice(0, 1), given: ['--option'] });
    assert.deepEqual(one.issues, []);
    const picked = accountsToCheck({ supplier: 'eu', accounts: ACCOUNTS, given: ['--option'] });
    assert.deepEqual(picked.issues, []);
  });
});

describe("an account's options", () => {
  it("take the account's rate cap and settings; with several, its own order id", () => {
    const eu = optionsFor(ACCOUNTS[1] as SupplierAccount, OPTIONS, true);
    assert.equal(eu.maxCallsPerSecond, 20);
    assert.equal(eu.book?.orderId, 'doctor-x-eu');
    assert.equal(eu.settings?.maxCallsPerSecond, 'SUPPLIER_ACCOUNTS "eu" maxCallsPerSecond');
    const alone = optionsFor(ACCOUNTS[0] as SupplierAccount, OPTIONS, false);
    assert.equal(alone.book?.orderId, 'doctor-x');
    assert.equal(alone.settings, DEFAULT_ACCOUNT_SETTINGS);
  });

  it('name the default account by its variables, another by its SUPPLIER_ACCOUNTS fields', () => {
    assert.equal(accountSettings('default').timeouts.read, 'HOTEL_API_READ_TIMEOUT_MS');
    assert.equal(accountSettings('eu').timeouts.read, 'SUPPLIER_ACCOUNTS "eu" readTimeoutMs');
    assert.match(accountSettings('eu').credentials, /SUPPLIER_ACCOUNTS "eu" key and secret/);
  });
});

describe("a run's exit code and reports", () => {
  it('the exit code is the worst of the accounts', () => {
    assert.equal(worstExit([0, 0]), 0);
    assert.equal(worstExit([0, 1, 0]), 1);
    assert.equal(worstExit([1, 2, 0]), 2);
    assert.equal(worstExit([]), 0);
  });

  it('--json with one account: that report at the top level too, as before accounts', () => {
    const one: DoctorRunReport = { accounts: [report('default', 1)], exitCode: 1 };
    const j = doctorJson(one);
    assert.deepEqual(j.checks, one.accounts[0]?.checks);
    assert.equal(j.supplier, 'https://api.supplier.example');
    assert.equal(j.exitCode, 1);
    assert.equal(j.accounts.length, 1);
    assert.equal('id' in j, false);
  });

  it('--json with several accounts: accounts and exitCode only', () => {
    const run: DoctorRunReport = { accounts: [report('default', 0), report('eu', 2)], exitCode: 2 };
    assert.deepEqual(Object.keys(doctorJson(run)), ['accounts', 'exitCode']);
  });

  it('for people: a section per account, headed by it, a disabled one said so, then the run', () => {
    const text = renderDoctorRun({
      accounts: [report('default', 0), report('eu', 1, false)],
      exitCode: 1,
    });
    assert.match(
      text,
      /^Supplier account "default" at https:\/\/api\.supplier\.example \(enabled\)/,
    );
    assert.match(text, /Supplier account "eu" at .* \(disabled: takes no new orders/);
    assert.match(text, /Account "eu": 1 ok, 0 warn, 0 fail, 0 not run: exit 1/);
    assert.match(text, /2 accounts checked \("default" exit 0, "eu" exit 1\): exit 1, something/);
    const single = renderDoctorRun({ accounts: [report('default', 0)], exitCode: 0 });
    assert.doesNotMatch(single, /accounts checked/);
  });
});
