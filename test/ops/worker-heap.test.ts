import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEAP_GROWING_PERCENT, heapGrowingFlag } from '../../src/build-worker';

test('the worker bounds V8 heap growth unless the command line sets it', () => {
  assert.equal(heapGrowingFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  assert.equal(
    heapGrowingFlag(['--import', 'tsx']),
    `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
  );
  // A command-line setting wins (experiments; 0 is V8's own factor), in either spelling.
  assert.equal(heapGrowingFlag(['--heap-growing-percent=0']), undefined);
  assert.equal(heapGrowingFlag(['--heap_growing_percent=80']), undefined);
  assert.ok(HEAP_GROWING_PERCENT > 0 && HEAP_GROWING_PERCENT < 300);
});
