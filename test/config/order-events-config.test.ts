/** ORDER_EVENTS_*: one line naming the variable for each bad setting, the secret never echoed. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { problemsOf as configProblems } from '../helpers/config-problems';
import { loadConfig } from '../../src/config';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadConfig, env);

describe('order events configuration', () => {
  it('is off without ORDER_EVENTS_URL, on with a URL and a whsec_ secret (inline or from a file)', () => {
    assert.equal(loadConfig({}).orderEvents, undefined);
    const on = loadConfig({
      ORDER_EVENTS_URL: 'https://orders.example/hooks',
      ORDER_EVENTS_SECRET: SECRET,
    });
    assert.deepEqual(on.orderEvents, { url: 'https://orders.example/hooks', secret: SECRET });
    const file = join(mkdtempSync(join(tmpdir(), 'hbo-events-')), 'secret');
    writeFileSync(file, `${SECRET}\n`);
    const fromFile = loadConfig({
      ORDER_EVENTS_URL: 'http://127.0.0.1:9/x',
      ORDER_EVENTS_SECRET_FILE: file,
    });
    assert.equal(fromFile.orderEvents?.secret, SECRET);
  });

  it('refuses a URL that is not http(s), naming ORDER_EVENTS_URL', () => {
    for (const url of ['ftp://orders.example/x', 'not a url']) {
      const problems = problemsOf({ ORDER_EVENTS_URL: url, ORDER_EVENTS_SECRET: SECRET });
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, /^ORDER_EVENTS_URL: /);
    }
  });

  it('refuses a missing or malformed secret, naming the variable and never echoing it', () => {
    const missing = problemsOf({ ORDER_EVENTS_URL: 'https://o.example/' });
    assert.match(missing[0]!, /^ORDER_EVENTS_SECRET: required/);
    for (const bad of [
      'secret-SENTINEL-123',
      'whsec_not*base64',
      `whsec_${Buffer.alloc(8).toString('base64')}`,
    ]) {
      const problems = problemsOf({
        ORDER_EVENTS_URL: 'https://o.example/',
        ORDER_EVENTS_SECRET: bad,
      });
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, /^ORDER_EVENTS_SECRET: must be whsec_/);
      assert.ok(!problems[0]!.includes(bad), 'the secret is not echoed');
    }
  });
});
