/**
 * `hotel-booking doctor` as users run it: a child process configured by HOTEL_API_*, against
 * simulators started here on port 0. The table for people, `--json` for pipelines, exit codes,
 * a test booking left cancelled, bad flags as one line, and no secret in the output.
 */
import assert from 'node:assert/strict';
import { BOOK_CHECKS } from '../../src/doctor/check-result';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DoctorReport } from '../../src/doctor/run-doctor';
import { DEMO_COMPANY, buildSimulator, type Simulator } from '../../tools/simulator';
import { freePort } from '../../tools/temporal-server/dev-server';
import { cli, explain, json, type CliRun } from '../cli/cli-process';

const INACTIVE = { key: 'inactive-key', secret: 'inactive-secret-do-not-print', active: false };

describe('hotel-booking doctor, run as a command', () => {
  const sims: Simulator[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'doctor-cli-'));
  /** The simulator the test booking is made on. */
  let booked: Simulator;
  let runs: Record<'table' | 'book' | 'comma' | 'badFlags' | 'unreachable', CliRun>;

  const envFor = (origin: string): NodeJS.ProcessEnv => ({
    ...process.env,
    HOTEL_API_BASE_URL: origin,
    HOTEL_API_KEY: DEMO_COMPANY.key,
    HOTEL_API_SECRET: DEMO_COMPANY.secret,
  });

  before(async () => {
    const start = async (deviations = {}) => {
      const sim = buildSimulator({ companies: [DEMO_COMPANY, INACTIVE], deviations });
      sims.push(sim);
      return { sim, origin: (await sim.listen()).origin };
    };
    const first = await start();
    const forBooking = await start();
    const comma = await start({ 'comma-arrays': true });
    const secretFile = join(dir, 'inactive.secret');
    writeFileSync(secretFile, `${INACTIVE.secret}\n`);
    const closed = await freePort();
    const [table, book, commaRun, badFlags, unreachable] = await Promise.all([
      cli(envFor(first.origin))('doctor', '--samples', '1'),
      cli(envFor(forBooking.origin))(
        '--json',
        'doctor',
        '--samples',
        '1',
        '--book',
        '--property',
        '1001',
        '--checkin',
        '2030-05-10',
        '--order-id',
        'doctor-cli-1',
        '--inactive-key',
        INACTIVE.key,
        '--inactive-secret-file',
        secretFile,
      ),
      cli(envFor(comma.origin))('doctor', '--samples', '1'),
      cli(envFor(first.origin))('doctor', '--book', '--country', 'Italy'),
      cli(envFor(`http://127.0.0.1:${closed}`))('doctor'),
    ]);
    runs = { table, book, comma: commaRun, badFlags, unreachable };
    booked = forBooking.sim;
  });

  after(async () => {
    await Promise.all(sims.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a table of checks against the plain simulator and exits 0', () => {
    const r = runs.table;
    assert.equal(r.code, 0, explain(r));
    assert.match(r.stdout, /│ reachable\s+│ OK/);
    assert.match(r.stdout, /│ array-encoding\s+│ OK/);
    assert.match(r.stdout, /0 fail/);
    assert.match(r.stdout, /exit 0, nothing found that would break bookings/);
  });

  it('with --book --json, reports each step and leaves the booking cancelled', () => {
    const r = runs.book;
    assert.equal(r.code, 0, explain(r));
    const report = json<DoctorReport>(r);
    const verdicts = Object.fromEntries(report.checks.map((c) => [c.name, c.verdict]));
    for (const name of [...BOOK_CHECKS, 'inactive-account']) {
      assert.equal(verdicts[name], 'ok', name);
    }
    const bookings = booked.bookings({ customFields: { custom_field_10: 'doctor-cli-1' } });
    assert.equal(bookings.length, 1);
    assert.equal(bookings[0]?.status, 'CANCELLED');
  });

  it('prints no secret', () => {
    for (const r of Object.values(runs)) {
      const out = r.stdout + r.stderr;
      assert.doesNotMatch(out, new RegExp(DEMO_COMPANY.secret));
      assert.doesNotMatch(out, new RegExp(INACTIVE.secret));
    }
  });

  it('exits 1 and names array-encoding when the supplier reads comma-separated arrays only', () => {
    const r = runs.comma;
    assert.equal(r.code, 1, explain(r));
    assert.match(r.stdout, /│ array-encoding\s+│ FAIL/);
  });

  it('refuses bad flags in one line naming each, without a stack trace, and sends nothing', () => {
    const r = runs.badFlags;
    assert.equal(r.code, 2, explain(r));
    assert.match(r.stderr, /--country: must be two capital letters/);
    assert.match(r.stderr, /--book: needs --property and --checkin, or --option/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  it('exits 2 when the supplier cannot be reached', () => {
    const r = runs.unreachable;
    assert.equal(r.code, 2, explain(r));
    assert.match(r.stdout, /│ reachable\s+│ FAIL/);
    assert.match(r.stdout, /could not be checked/);
  });
});
