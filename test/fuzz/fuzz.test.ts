/**
 * The hostile-input campaign (`npm run fuzz`, docs/fuzzing.md), short and with a fixed seed, and
 * each defect it found as a test named for its input.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config';
import { loadWorkerConfig } from '../../src/worker-config';
import { defects, figure } from '../../tools/fuzz/campaign';
import { campaign } from '../../tools/fuzz/run';
import { validInput } from '../../tools/fuzz/order-inputs';
import { checkBookRoomInput } from '../../src/workflows/input-checks';

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadWorkerConfig(env);
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError, `not a ConfigError: ${String(err)}`);
    return err.problems;
  }
}

describe('hostile inputs, counted', () => {
  it('a short campaign with a fixed seed finds no defect on any surface', async () => {
    const tallies = await campaign({ seed: 20261129, count: 600, seconds: 60 });
    for (const t of tallies) assert.ok(t.inputs > 0, `${t.surface}: no input tried`);
    assert.deepEqual(
      tallies.filter((t) => defects(t) > 0).map((t) => t.examples),
      [],
      figure(tallies),
    );
  });

  it('customFields keys holding spaces, ":" and ";": each quoted in the refusal, one problem each', () => {
    const checked = checkBookRoomInput({
      ...validInput('fuzz-keys'),
      customFields: { 'k$$|3z ': 'x', 'a: b; c': 'y' },
    });
    assert.ok(!checked.success);
    assert.deepEqual(
      checked.issues.map((i) => i.field),
      ['customFields["k$$|3z "]', 'customFields["a: b; c"]'],
    );
  });

  it('TEMPORAL_TLS_KEY holding key material that is not PEM: refused without echoing it', () => {
    const problems = problemsOf({ TEMPORAL_TLS_KEY: '9007199254740993-key-material' });
    assert.ok(problems.some((p) => p.startsWith('TEMPORAL_TLS_KEY: ')));
    assert.doesNotMatch(problems.join('\n'), /key-material/);
  });

  it('a _FILE path holding a newline: one quoted line', () => {
    const problems = problemsOf({ HOTEL_API_KEY_FILE: '\n\u0006__looku' });
    assert.deepEqual(
      problems.filter((p) => p.startsWith('HOTEL_API_KEY_FILE')),
      ['HOTEL_API_KEY_FILE: cannot read "\\n\\u0006__looku" (ENOENT)'],
    );
  });

  it("a URL's password in a refused value is masked (TEMPORAL_TLS, TEMPORAL_ADDRESS)", () => {
    const url = 'https://user:fuzz-pw-7c1e9a@127.0.0.1';
    assert.deepEqual(problemsOf({ TEMPORAL_TLS: url }), [
      'TEMPORAL_TLS: must be true or false (got "https://user:***@127.0.0.1")',
    ]);
    const remote = problemsOf({
      TEMPORAL_ADDRESS: 'https://user:fuzz-pw-7c1e9a@temporal.example:7233',
    });
    assert.ok(remote.length > 0);
    assert.doesNotMatch(remote.join('\n'), /fuzz-pw-7c1e9a/);
  });
});
