import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { freePort } from '../../tools/temporal-server/dev-server';
import { cli, explain, runNode, type CliRun } from './cli-process';

describe('the command-line tool without a stack: usage, configuration and reachability', () => {
  const closedPort = { temporal: 0, supplier: 0 };
  let runs: Record<
    | 'temporal'
    | 'supplier'
    | 'config'
    | 'temporalOnly'
    | 'unknown'
    | 'missing'
    | 'phase'
    | 'help'
    | 'bin',
    CliRun
  >;

  // Every run is independent: start them all at once, then check each in its own test.
  before(async () => {
    closedPort.temporal = await freePort();
    closedPort.supplier = await freePort();
    const noCredentials: NodeJS.ProcessEnv = {
      ...process.env,
      HOTEL_API_BASE_URL: 'https://supplier.example.com',
    };
    delete noCredentials.HOTEL_API_KEY;
    delete noCredentials.HOTEL_API_SECRET;
    const tool = cli(process.env);
    const [temporal, supplier, config, temporalOnly, unknown, missing, phase, help, bin] =
      await Promise.all([
        cli({ ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${closedPort.temporal}` })(
          'status',
          'any-order',
        ),
        cli({ ...process.env, HOTEL_API_BASE_URL: `http://127.0.0.1:${closedPort.supplier}` })(
          '--json',
          'search',
          '--property',
          '1001',
          '--checkin',
          '2030-01-01',
          '--checkout',
          '2030-01-03',
        ),
        cli(noCredentials)('static'),
        cli({ ...noCredentials, TEMPORAL_ADDRESS: `127.0.0.1:${closedPort.temporal}` })(
          'status',
          'any-order',
        ),
        tool('frobnicate'),
        tool('--json', 'search', '--checkin', '2030-01-01'),
        tool('list', '--phase', 'SLEEPING'),
        tool('--help'),
        runNode('bin/hotel-booking.js', ['book', '--help'], process.env),
      ]);
    runs = { temporal, supplier, config, temporalOnly, unknown, missing, phase, help, bin };
  });

  it('cannot reach Temporal: exit 3, from the TCP probe, saying what to start', () => {
    const run = runs.temporal;
    assert.equal(run.code, 3, explain(run));
    // The probe's reason, not the SDK's 10 s "Failed to connect before the deadline".
    assert.match(
      run.stderr,
      new RegExp(
        `Cannot reach Temporal at 127\\.0\\.0\\.1:${closedPort.temporal} \\(ECONNREFUSED\\)`,
      ),
    );
    assert.match(run.stderr, /Try `npm run temporal` or `npm start`/);
  });

  it('cannot reach the supplier: exit 3, saying what to start, also as JSON', () => {
    const run = runs.supplier;
    assert.equal(run.code, 3, explain(run));
    assert.match(run.stderr, /Cannot reach the supplier at http:\/\/127\.0\.0\.1:\d+/);
    assert.match(run.stderr, /Try `npm run simulator` or `npm start`/);
    const doc = JSON.parse(run.stdout) as { error: { code: string } };
    assert.equal(doc.error.code, 'CONNECTION_FAILED_BEFORE_SEND');
  });

  it('a configuration problem is exit 2 naming the variable', () => {
    const run = runs.config;
    assert.equal(run.code, 2, explain(run));
    assert.match(run.stderr, /HOTEL_API_KEY: required/);
  });

  it('commands that only talk to Temporal do not need supplier credentials', () => {
    const run = runs.temporalOnly;
    assert.equal(run.code, 3, explain(run));
    assert.match(run.stderr, /Cannot reach Temporal/);
    assert.doesNotMatch(run.stderr, /HOTEL_API_KEY/);
  });

  it('usage errors are exit 2 with the reason', () => {
    assert.equal(runs.unknown.code, 2, explain(runs.unknown));
    assert.match(runs.unknown.stderr, /unknown command 'frobnicate'/);
    assert.equal(runs.missing.code, 2, explain(runs.missing));
    assert.match(runs.missing.stderr, /required option '--property <ids...>' not specified/);
    const doc = JSON.parse(runs.missing.stdout) as { error: { code: string } };
    assert.equal(doc.error.code, 'USAGE', 'a usage error in --json mode is a JSON document too');
    assert.equal(runs.phase.code, 2, explain(runs.phase));
    assert.match(runs.phase.stderr, /--phase: "SLEEPING" is not a phase; one of PRICE_CHECK/);
  });

  it('--help is exit 0 and lists every command; the installed binary runs the same tool', () => {
    const { help, bin } = runs;
    assert.equal(help.code, 0, explain(help));
    for (const command of [
      'search',
      'content',
      'static',
      'book',
      'status',
      'approve',
      'reject',
      'cancel',
      'resolve',
      'list',
    ]) {
      assert.match(help.stdout, new RegExp(`^  ${command}\\b`, 'm'), `${command} in --help`);
    }
    assert.match(help.stdout, /Exit codes: 0 ok; 1 the operation failed/);
    assert.equal(bin.code, 0, explain(bin));
    assert.match(bin.stdout, /--expected-net <amount>/);
  });
});
