/**
 * `hotel-booking doctor` over several supplier accounts, run as users run it: a child process
 * configured by HOTEL_API_* (the default account) and SUPPLIER_ACCOUNTS (JSON), against one
 * simulator holding a company per account and a second one that reads comma-separated arrays
 * only. Every account is checked and named; a wrong secret fails that account's credentials
 * alone; the exit code is the worst account's; `--supplier` checks one; an unknown id is one line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AccountReport, DoctorJson } from '../../src/doctor/run-accounts';
import { DEMO_COMPANY, buildSimulator, type Simulator } from '../../tools/simulator';
import { cli, explain, json, type CliRun } from '../cli/cli-process';

const EU = { key: 'eu-key-do-not-print', secret: 'eu-secret-do-not-print', active: true };
const ASIA = { key: 'asia-key-do-not-print', secret: 'asia-secret-do-not-print', active: true };
const WRONG = 'eu-wrong-secret-do-not-print';
const STAY = ['--property', '1001', '--checkin', '2030-05-10'];

type Runs = Record<
  'healthy' | 'table' | 'wrongSecret' | 'comma' | 'onlyEu' | 'unknown' | 'oneFlag' | 'book',
  CliRun
>;

/** The account of `id` in a `--json` run. */
function account(run: CliRun, id: string): AccountReport {
  const found = json<DoctorJson>(run).accounts.find((a) => a.id === id);
  assert.ok(found, `account ${id} reported:\n${explain(run)}`);
  return found;
}

const verdictOf = (report: AccountReport, name: string) =>
  report.checks.find((c) => c.name === name)?.verdict;

const notOk = (report: AccountReport) =>
  report.checks.filter((c) => c.verdict !== 'ok').map((c) => `${c.name}: ${c.verdict}`);

/** The human report's section of account `id`: from its heading to the next one. */
function section(run: CliRun, id: string): string {
  const start = run.stdout.indexOf(`Supplier account "${id}"`);
  assert.ok(start >= 0, `a section for ${id}:\n${explain(run)}`);
  const next = run.stdout.indexOf('Supplier account "', start + 1);
  return run.stdout.slice(start, next < 0 ? undefined : next);
}

describe('hotel-booking doctor over several supplier accounts', () => {
  const sims: Simulator[] = [];
  let shared: Simulator;
  let runs: Runs;

  before(async () => {
    shared = buildSimulator({ companies: [DEMO_COMPANY, EU, ASIA] });
    const comma = buildSimulator({
      companies: [DEMO_COMPANY, EU],
      deviations: { 'comma-arrays': true },
    });
    sims.push(shared, comma);
    const origin = (await shared.listen()).origin;
    const commaOrigin = (await comma.listen()).origin;
    const env = (accounts: readonly object[]): NodeJS.ProcessEnv => ({
      ...process.env,
      HOTEL_API_BASE_URL: origin,
      HOTEL_API_KEY: DEMO_COMPANY.key,
      HOTEL_API_SECRET: DEMO_COMPANY.secret,
      SUPPLIER_ACCOUNTS: JSON.stringify(accounts),
      SUPPLIER_ACCOUNTS_FILE: undefined,
    });
    const eu = { id: 'eu', baseUrl: origin, key: EU.key, secret: EU.secret };
    const asia = {
      id: 'asia',
      baseUrl: origin,
      key: ASIA.key,
      secret: ASIA.secret,
      enabled: false,
    };
    const healthy = cli(env([eu, asia]));
    const wrong = cli(env([{ ...eu, secret: WRONG }]));
    const [h, table, wrongSecret, commaRun, onlyEu, unknown, oneFlag, book] = await Promise.all([
      healthy('--json', 'doctor', '--samples', '1'),
      healthy('doctor', '--samples', '1'),
      wrong('doctor', '--samples', '1'),
      cli(env([{ ...eu, baseUrl: commaOrigin }]))('--json', 'doctor', '--samples', '1'),
      healthy('--json', 'doctor', '--samples', '1', '--supplier', 'eu'),
      healthy('doctor', '--supplier', 'nope'),
      healthy('doctor', '--option', 'opt-1', '--book'),
      cli(env([eu]))('--json', 'doctor', '--samples', '1', '--book', ...STAY),
    ]);
    runs = { healthy: h, table, wrongSecret, comma: commaRun, onlyEu, unknown, oneFlag, book };
  });

  after(async () => {
    await Promise.all(sims.map((s) => s.close()));
  });

  it('checks every account, a disabled one too, each ok, and exits 0', () => {
    const r = runs.healthy;
    assert.equal(r.code, 0, explain(r));
    const report = json<DoctorJson>(r);
    assert.deepEqual(
      report.accounts.map((a) => [a.id, a.enabled, a.exitCode, notOk(a)]),
      [
        ['default', true, 0, []],
        ['eu', true, 0, []],
        ['asia', false, 0, []],
      ],
    );
    assert.equal(report.exitCode, 0);
    assert.equal(report.checks, undefined, 'several accounts: no single report at the top');
  });

  it("calls each account with its own key: the simulator saw every company's", () => {
    const r = runs.healthy;
    for (const id of ['eu', 'asia']) {
      assert.equal(verdictOf(account(r, id), 'credentials'), 'ok', id);
      const credentials = account(r, id).checks.find((c) => c.name === 'credentials');
      assert.match(credentials?.evidence ?? '', new RegExp(`account "${id}"`));
    }
  });

  it('heads each section of the table with its account, says which is disabled, sums up the run', () => {
    const r = runs.table;
    assert.equal(r.code, 0, explain(r));
    assert.match(section(r, 'default'), /│ credentials\s+│ OK/);
    assert.match(section(r, 'eu'), /\(enabled\)/);
    assert.match(section(r, 'asia'), /\(disabled: takes no new orders/);
    assert.match(section(r, 'asia'), /│ array-encoding\s+│ OK/);
    assert.match(
      r.stdout,
      /3 accounts checked .*: exit 0, nothing found that would break bookings/,
    );
  });

  it("a wrong secret fails that account's credentials, named by its id; the other is ok; exit 2", () => {
    const r = runs.wrongSecret;
    assert.equal(r.code, 2, explain(r));
    assert.match(section(r, 'eu'), /│ credentials\s+│ FAIL/);
    assert.match(section(r, 'eu'), /SUPPLIER_ACCOUNTS "eu" key and secret/);
    assert.match(section(r, 'eu'), /Account "eu": .*exit 2, the supplier could not be checked/);
    assert.match(section(r, 'default'), /│ credentials\s+│ OK/);
    assert.match(section(r, 'default'), /Account "default": .*exit 0/);
    assert.match(r.stdout, /2 accounts checked \("default" exit 0, "eu" exit 2\): exit 2/);
  });

  it("exits 1 when one account's supplier would break bookings, naming the check there only", () => {
    const r = runs.comma;
    assert.equal(r.code, 1, explain(r));
    assert.deepEqual(notOk(account(r, 'default')), []);
    assert.deepEqual(notOk(account(r, 'eu')), ['array-encoding: fail']);
  });

  it('--supplier eu checks eu alone, its report also at the top level as before accounts', () => {
    const r = runs.onlyEu;
    assert.equal(r.code, 0, explain(r));
    const report = json<DoctorJson>(r);
    assert.deepEqual(
      report.accounts.map((a) => a.id),
      ['eu'],
    );
    assert.equal(report.checks?.find((c) => c.name === 'credentials')?.verdict, 'ok');
    assert.equal(report.supplier, account(r, 'eu').supplier);
    assert.equal(report.exitCode, 0);
  });

  it('an unknown --supplier is one line naming the flag and the configured ids; exit 2', () => {
    const r = runs.unknown;
    assert.equal(r.code, 2, explain(r));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /--supplier: no account "nope" \(configured: default, eu, asia\)/);
  });

  it("a flag naming one account's things needs --supplier when several are configured", () => {
    const r = runs.oneFlag;
    assert.equal(r.code, 2, explain(r));
    assert.match(r.stderr, /--option: applies to one account: add --supplier <id>/);
  });

  it('with --book, books and cancels once on each account, with an order id of its own', () => {
    const r = runs.book;
    assert.equal(r.code, 0, explain(r));
    for (const [id, company] of [
      ['default', DEMO_COMPANY],
      ['eu', EU],
    ] as const) {
      assert.equal(verdictOf(account(r, id), 'book-cancel'), 'ok', id);
      const made = shared.bookings({ companyKey: company.key });
      assert.equal(made.length, 1, id);
      assert.equal(made[0]?.status, 'CANCELLED');
      const orderId = JSON.stringify(made[0]?.customFields);
      assert.match(orderId, new RegExp(`"custom_field_10":"doctor-[0-9a-z]+-${id}"`));
    }
  });

  it("prints no account's secret or key", () => {
    for (const r of Object.values(runs)) {
      const out = r.stdout + r.stderr;
      for (const s of [DEMO_COMPANY.secret, EU.secret, EU.key, ASIA.secret, ASIA.key, WRONG]) {
        assert.doesNotMatch(out, new RegExp(s));
      }
    }
  });
});
