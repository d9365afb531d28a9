import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePort } from '../../src/temporal-server/dev-server';
import { cli, explain, runNode } from './cli-process';

describe('the command-line tool without a stack: usage, configuration and reachability', () => {
  it('cannot reach Temporal: exit 3 at once, saying what to start', async () => {
    const port = await freePort();
    const run = await cli({ ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${port}` })(
      'status',
      'any-order',
    );
    assert.equal(run.code, 3, explain(run));
    assert.match(run.stderr, new RegExp(`Cannot reach Temporal at 127\\.0\\.0\\.1:${port}`));
    assert.match(run.stderr, /Try `npm run temporal` or `npm start`/);
    // The SDK would wait 10 s for an address nobody listens on; the probe answers in milliseconds.
    assert.ok(run.ms < 8_000, `took ${run.ms} ms`);
  });

  it('cannot reach the supplier: exit 3, saying what to start, also as JSON', async () => {
    const port = await freePort();
    const run = await cli({ ...process.env, HOTEL_API_BASE_URL: `http://127.0.0.1:${port}` })(
      '--json',
      'search',
      '--property',
      '1001',
      '--checkin',
      '2030-01-01',
      '--checkout',
      '2030-01-03',
    );
    assert.equal(run.code, 3, explain(run));
    assert.match(run.stderr, /Cannot reach the supplier at http:\/\/127\.0\.0\.1:\d+/);
    assert.match(run.stderr, /Try `npm run simulator` or `npm start`/);
    const doc = JSON.parse(run.stdout) as { error: { code: string } };
    assert.equal(doc.error.code, 'CONNECTION_FAILED_BEFORE_SEND');
  });

  it('a configuration problem is exit 2 naming the variable', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOTEL_API_BASE_URL: 'https://supplier.example.com',
    };
    delete env.HOTEL_API_KEY;
    delete env.HOTEL_API_SECRET;
    const run = await cli(env)('static');
    assert.equal(run.code, 2, explain(run));
    assert.match(run.stderr, /HOTEL_API_KEY: required/);
  });

  it('usage errors are exit 2 with the reason; --help is exit 0 and lists every command', async () => {
    const run = cli(process.env);
    const [unknown, missing, phase, help, binHelp] = await Promise.all([
      run('frobnicate'),
      run('search', '--checkin', '2030-01-01'),
      run('list', '--phase', 'SLEEPING'),
      run('--help'),
      runNode('bin/hotel-booking.js', ['book', '--help'], process.env),
    ]);
    assert.equal(unknown.code, 2, explain(unknown));
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
    assert.equal(missing.code, 2, explain(missing));
    assert.match(missing.stderr, /required option '--property <ids...>' not specified/);
    assert.equal(phase.code, 2, explain(phase));
    assert.match(phase.stderr, /--phase: "SLEEPING" is not a phase; one of PRICE_CHECK/);
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
    // The installed binary is a shim over the same code.
    assert.equal(binHelp.code, 0, explain(binHelp));
    assert.match(binHelp.stdout, /--expected-net <amount>/);
  });
});
