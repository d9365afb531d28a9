/**
 * How the content sync pass's steps move its state (src/workflows/content-sync/sync-state.ts):
 * pure functions, no Temporal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  afterFinish,
  afterPage,
  detailLimits,
  firstSyncState,
  morePages,
  pagesPerRun,
  syncProgress,
  syncResult,
} from '../../src/workflows/content-sync/sync-state';

const input = { countryCode: 'IT', language: 'en' } as const;
const page = (n: number, total: number, ids: [number, number][], listed = 200) => ({
  page: n,
  total,
  ids,
  missing: 1,
  listed,
  inserted: 2,
  updated: 1,
  unchanged: 0,
});

describe('content sync state', () => {
  it('starts a pass at page 1 with nothing seen, its total unknown, so it has pages left', () => {
    const first = firstSyncState('run-1', 1_000);
    assert.deepEqual(first, {
      syncId: 'run-1',
      startedAtMs: 1_000,
      nextPage: 1,
      pages: undefined,
      seen: [],
      counts: { inserted: 0, updated: 0, unchanged: 0 },
      missing: 0,
      referenceListsDone: false,
      run: 1,
    });
    assert.equal(morePages(first), true);
  });

  it('after each page: the next page, the latest total in pages, the ids merged and the counts added', () => {
    const one = afterPage(firstSyncState('s', 0), page(1, 350, [[1, 200]]));
    assert.equal(one.nextPage, 2);
    assert.equal(one.pages, 2);
    assert.deepEqual(one.seen, [[1, 200]]);
    assert.deepEqual(one.counts, { inserted: 2, updated: 1, unchanged: 0 });
    assert.equal(one.missing, 1);
    assert.equal(morePages(one), true);
    // The list shrank under the pass: its latest total wins, and the pass has no page left.
    const two = afterPage(one, page(2, 200, [[201, 350]]));
    assert.equal(two.pages, 1);
    assert.deepEqual(two.seen, [[1, 350]]);
    assert.deepEqual(two.counts, { inserted: 4, updated: 2, unchanged: 0 });
    assert.equal(morePages(two), false);
  });

  it('at the end, rows confirmed active count as seen, and the result reports the whole pass', () => {
    const paged = afterPage(firstSyncState('s', 1_000), page(1, 10, [[1, 10]]));
    const end = afterFinish(paged, {
      deactivated: 3,
      confirmedActive: [[11, 12]],
      inserted: 0,
      updated: 2,
      unchanged: 0,
    });
    assert.deepEqual(end.seen, [[1, 12]]);
    assert.deepEqual(syncResult(input, end, 3, 6_000), {
      countryCode: 'IT',
      language: 'en',
      pages: 1,
      properties: 12,
      inserted: 2,
      updated: 3,
      unchanged: 0,
      deactivated: 3,
      durationMs: 5_000,
      syncId: 's',
      runs: 1,
    });
    assert.deepEqual(syncProgress(input, 'DONE', end), {
      countryCode: 'IT',
      language: 'en',
      phase: 'DONE',
      nextPage: 2,
      pages: 1,
      properties: 12,
      counts: { inserted: 2, updated: 3, unchanged: 0 },
      run: 1,
    });
  });

  it('passes on only the detail limits the input sets, and pages per run floored, 10 by default', () => {
    assert.deepEqual(detailLimits(input), {});
    assert.deepEqual(detailLimits({ ...input, detailConcurrency: 4, detailsPerSecond: 0 }), {
      detailConcurrency: 4,
      detailsPerSecond: 0,
    });
    assert.equal(pagesPerRun(input), 10);
    assert.equal(pagesPerRun({ ...input, pagesPerRun: 2.7 }), 2);
  });
});
