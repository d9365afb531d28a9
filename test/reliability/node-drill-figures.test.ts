/** The node drill's figures (pure): when the flow came back, and which disruption explains a task timeout. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  explainTaskTimeouts,
  failedProbes,
  flowAgainMs,
} from '../../tools/chaos/node-drill-figures';

describe('node drill figures', () => {
  const round = (at: number, ok: number, total = 4) => ({ at, ok, total });

  it('the flow is back at the first of three rounds in a row that all answer', () => {
    const rounds = [
      round(0, 4),
      round(1000, 2),
      round(2000, 4),
      round(3000, 3),
      round(4000, 4),
      round(5000, 4),
      round(6000, 4),
    ];
    assert.equal(flowAgainMs(rounds, 500), 3500);
    assert.equal(flowAgainMs(rounds, 500, 6000), undefined, 'not three good rounds before the end');
    assert.equal(failedProbes(rounds, 500, 6000), 3);
    assert.equal(flowAgainMs([round(0, 0, 0), round(1, 0, 0), round(2, 0, 0)], 0), undefined);
  });

  it('a timeout is explained by the latest disruption at most 30 s before it', () => {
    const out = explainTaskTimeouts(
      [
        { orderId: 'a', at: 10_000, timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' },
        { orderId: 'b', at: 50_000, timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' },
        { orderId: 'c', at: 1_000, timeoutType: 'TIMEOUT_TYPE_SCHEDULE_TO_START' },
      ],
      [
        { what: 'node 1', at: 2_000 },
        { what: 'node 2', at: 8_000 },
      ],
    );
    assert.equal(out[0]!.cause, 'node 2, 2.0 s before');
    assert.equal(out[1]!.cause, undefined);
    assert.equal(out[2]!.cause, undefined);
  });
});
