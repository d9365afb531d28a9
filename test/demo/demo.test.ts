import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEMO_CASES } from '../../tools/demo/demo-cases';
import { temporalAddress } from '../helpers/temporal';
import { explain, runNode } from '../cli/cli-process';

describe('npm run demo', () => {
  it('runs every scenario to its expected outcome, prints the summary table and exits 0', async () => {
    // The run's Temporal server instead of a second one; the demo still starts its own simulator
    // and worker.
    const run = await runNode(
      'tools/demo/main.ts',
      ['--temporal-address', temporalAddress()],
      process.env,
      180_000,
    );
    assert.equal(run.code, 0, explain(run));
    for (const c of DEMO_CASES) {
      const row = run.stdout
        .split('\n')
        .find((l) => new RegExp(`│ demo-[a-z0-9]+-${c.key} +│`).test(l));
      assert.ok(row, `a summary row for ${c.key}:\n${run.stdout}`);
      const cells = row.split('│').map((cell) => cell.trim());
      // │ order │ scenario │ expected │ outcome │ supplier booking │ duration │ ✓ │
      assert.equal(cells[2], c.label);
      assert.equal(cells[3], c.expected);
      assert.equal(cells[4], c.expected, `${c.key} reached ${c.expected}`);
      assert.equal(cells[7], '✓');
      if (c.expected !== 'NOT_AVAILABLE')
        assert.match(cells[5] ?? '', /^\d+$/, 'a supplier booking id');
    }
    assert.match(
      run.stdout,
      new RegExp(`All ${DEMO_CASES.length} bookings reached their expected outcome`),
    );
  });
});
