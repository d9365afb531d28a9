import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  HEAP_GROWING_PERCENT,
  MAX_SEMI_SPACE_MIB,
  workerNodeFlags,
  workerV8Flags,
} from '../../src/build-worker';

test('the worker bounds V8 heap growth and the young generation unless the command line sets them', () => {
  const ours = [
    `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    `--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`,
  ];
  assert.deepEqual(workerV8Flags([]), ours);
  assert.deepEqual(workerV8Flags(['--import', 'tsx']), ours);
  assert.deepEqual(workerNodeFlags(), ours);
  // A command-line setting wins (experiments; 0 is V8's own factor), in either spelling.
  assert.deepEqual(workerV8Flags(['--heap-growing-percent=0']), [ours[1]]);
  assert.deepEqual(workerV8Flags(['--heap_growing_percent=80', '--max-semi-space-size=16']), []);
  assert.ok(HEAP_GROWING_PERCENT > 0 && HEAP_GROWING_PERCENT < 300);
  assert.ok(MAX_SEMI_SPACE_MIB >= 1 && MAX_SEMI_SPACE_MIB <= 16);
});
