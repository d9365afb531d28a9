import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  mergeRanges,
  openSqliteCatalogueStore,
  propertyNames,
  rangeIds,
  rangesHas,
  rangesSize,
  searchCatalogue,
  showProperty,
  toRanges,
  type CatalogueStore,
  type PropertyRecord,
} from '../../src/catalogue';
import { canonicalJson, contentHash } from '../../src/catalogue/content-hash';
import { forEachLimited } from '../../src/catalogue/limiter';

const dir = mkdtempSync(join(process.env.TEST_WORK_DIR ?? tmpdir(), 'catalogue-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let dbCounter = 0;
function openStore(now?: () => number): { store: CatalogueStore; path: string } {
  dbCounter += 1;
  const path = join(dir, `nested-${dbCounter}`, 'catalogue.db');
  return { store: openSqliteCatalogueStore({ path, ...(now ? { now } : {}) }), path };
}

function rec(
  id: number,
  overrides: Partial<PropertyRecord['detail']> = {},
  language: 'en' | 'it' = 'en',
  countryCode = 'IT',
): PropertyRecord {
  return {
    id,
    language,
    countryCode,
    detail: {
      id,
      name: `Hotel ${id}`,
      city: language === 'en' ? 'Rome' : 'Roma',
      stars: 3,
      guest_rating_overall: 8,
      descriptions: { headline: language === 'en' ? 'A hotel' : 'Un albergo' },
      ...overrides,
    },
  };
}

describe('id ranges', () => {
  it('encode a set of ids as sorted, merged inclusive ranges', () => {
    assert.deepEqual(toRanges([5, 1, 2, 3, 9, 10, 3]), [
      [1, 3],
      [5, 5],
      [9, 10],
    ]);
    assert.deepEqual(mergeRanges([[1, 3]], [[4, 6]]), [[1, 6]]);
    assert.equal(rangesSize(toRanges([1, 2, 3, 7])), 4);
  });

  it('round-trip any set of ids, and merging is set union (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 500 })),
        fc.array(fc.integer({ min: 0, max: 500 })),
        (a, b) => {
          const ra = toRanges(a);
          assert.deepEqual(
            [...rangeIds(ra)],
            [...new Set(a)].sort((x, y) => x - y),
          );
          const union = new Set([...a, ...b]);
          const merged = mergeRanges(ra, toRanges(b));
          assert.deepEqual(merged, toRanges(union));
          for (let id = -1; id <= 501; id++) assert.equal(rangesHas(merged, id), union.has(id));
        },
      ),
    );
  });
});

describe('content hash', () => {
  it('ignores key order but not array order or values', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: 2, c: 3 } }), '{"a":{"c":3,"d":2},"b":1}');
    assert.equal(contentHash({ a: 1, b: [1, 2] }), contentHash({ b: [1, 2], a: 1 }));
    assert.notEqual(contentHash({ a: 1, b: [1, 2] }), contentHash({ a: 1, b: [2, 1] }));
    assert.notEqual(contentHash({ a: 1 }), contentHash({ a: 2 }));
  });
});

describe('detail fetch limiter', () => {
  it('never exceeds its concurrency and spaces starts by the rate cap', async () => {
    let inFlight = 0;
    let peak = 0;
    const starts: number[] = [];
    await forEachLimited(
      Array.from({ length: 20 }, (_, i) => i),
      { concurrency: 3, perSecond: 100 },
      async () => {
        starts.push(performance.now());
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 15));
        inFlight -= 1;
      },
    );
    assert.equal(starts.length, 20);
    assert.ok(peak <= 3, `peak concurrency ${peak}`);
    // 20 starts at 100/s span at least 19 intervals of 10 ms (timers may fire ~1 ms early).
    const span = starts[starts.length - 1]! - starts[0]!;
    assert.ok(span >= 19 * 10 - 5, `20 starts took only ${span.toFixed(1)} ms`);
  });

  it('stops starting new calls after a failure and rejects with the first error', async () => {
    const seen: number[] = [];
    await assert.rejects(
      forEachLimited([1, 2, 3, 4, 5, 6], { concurrency: 1, perSecond: 0 }, async (n) => {
        seen.push(n);
        if (n === 2) throw new Error('boom 2');
      }),
      /boom 2/,
    );
    assert.deepEqual(seen, [1, 2]);
  });

  it('rejects waiting calls when its signal aborts', async () => {
    const controller = new AbortController();
    const run = forEachLimited(
      [1, 2, 3],
      { concurrency: 1, perSecond: 1, signal: controller.signal },
      async () => {
        controller.abort(new Error('shutting down'));
      },
    );
    await assert.rejects(run, /shutting down/);
  });
});

describe('SQLite catalogue store', () => {
  it('inserts, then reports unchanged for identical content and updated for changed content', async () => {
    const { store } = openStore();
    assert.deepEqual(await store.upsertProperties([rec(1), rec(2)], 'sync-a'), {
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    assert.deepEqual(await store.upsertProperties([rec(1), rec(2, { stars: 4 })], 'sync-b'), {
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });
    // Key order is not a change.
    const reordered: PropertyRecord = {
      ...rec(1),
      detail: Object.fromEntries(
        Object.entries(rec(1).detail).reverse(),
      ) as PropertyRecord['detail'],
    };
    assert.deepEqual(await store.upsertProperties([reordered], 'sync-c'), {
      inserted: 0,
      updated: 0,
      unchanged: 1,
    });
    const two = await store.getProperty(2, 'en');
    assert.equal(two?.stars, 4);
    assert.equal(two?.lastSyncId, 'sync-b');
    await store.close();
  });

  it('counts a row written twice by the same sync as it counted the first time', async () => {
    const { store } = openStore();
    await store.upsertProperties([rec(1)], 'sync-a');
    assert.deepEqual(await store.upsertProperties([rec(1), rec(2)], 'sync-b'), {
      inserted: 1,
      updated: 0,
      unchanged: 1,
    });
    // A retried attempt of sync-b stores the same rows again: same counts, nothing doubled.
    assert.deepEqual(await store.upsertProperties([rec(1), rec(2)], 'sync-b'), {
      inserted: 1,
      updated: 0,
      unchanged: 1,
    });
    await store.close();
  });

  it('marks unseen rows of the same country and language inactive, never deleting them', async () => {
    const { store } = openStore();
    await store.upsertProperties([rec(1), rec(2), rec(3), rec(9, {}, 'en', 'FR')], 's1');
    await store.upsertProperties([rec(1, {}, 'it')], 's1');
    assert.equal(await store.markInactiveExcept('IT', 'en', [1, 3], 's1'), 1);
    // A retry with the same sync id reports the same number; nothing else changes.
    assert.equal(await store.markInactiveExcept('IT', 'en', [1, 3], 's1'), 1);
    const two = await store.getProperty(2, 'en');
    assert.equal(two?.active, false);
    assert.ok(two?.deactivatedAt);
    assert.equal((await store.getProperty(9, 'en'))?.active, true, 'other countries untouched');
    assert.equal((await store.getProperty(1, 'it'))?.active, true, 'other languages untouched');
    assert.deepEqual(await store.activeIds('IT', 'en'), [1, 3]);
    // Listed again later: active again, and that is a change.
    assert.deepEqual(await store.upsertProperties([rec(2)], 's2'), {
      inserted: 0,
      updated: 1,
      unchanged: 0,
    });
    const back = await store.getProperty(2, 'en');
    assert.equal(back?.active, true);
    assert.equal(back?.deactivatedAt, null);
    await store.close();
  });

  it('searches by country, city in any language, minimum stars and language', async () => {
    const { store } = openStore();
    await store.upsertProperties(
      [
        rec(1, { stars: 5, city: 'Rome' }),
        rec(2, { stars: 3, city: 'Rome' }),
        rec(3, { stars: 4, city: 'Milan' }),
        rec(4, { stars: 5, city: 'Málaga' }, 'en', 'ES'),
      ],
      's',
    );
    await store.upsertProperties([rec(1, { stars: 5, city: 'Roma' }, 'it')], 's');
    await store.markInactiveExcept('IT', 'en', [1, 3], 's');

    const rome = await searchCatalogue(store, { country: 'IT', city: 'rome' });
    assert.deepEqual(
      rome.map((p) => p.id),
      [1],
      'inactive 2 is hidden',
    );
    const withInactive = await searchCatalogue(store, {
      country: 'IT',
      city: 'Rome',
      includeInactive: true,
    });
    assert.deepEqual(
      withInactive.map((p) => [p.id, p.active]),
      [
        [1, true],
        [2, false],
      ],
    );
    const italian = await searchCatalogue(store, { city: 'Rome', language: 'it' });
    assert.deepEqual(
      italian.map((p) => [p.id, p.city]),
      [[1, 'Roma']],
      'an English city name finds Italian rows',
    );
    assert.deepEqual(
      (await searchCatalogue(store, { minStars: 4 })).map((p) => p.id),
      [1, 4, 3],
      'best first',
    );
    assert.deepEqual(
      (await searchCatalogue(store, { city: 'MALAGA' })).map((p) => p.id),
      [4],
      'accents and case are ignored',
    );
    await assert.rejects(searchCatalogue(store, { country: 'Italy' }), RangeError);
    await store.close();
  });

  it('shows one property with its detail and names many for availability answers', async () => {
    const { store } = openStore();
    await store.upsertProperties([rec(1), rec(2, { name: 'Due', stars: null })], 's');
    await store.upsertProperties([rec(3, { name: 'Solo italiano' }, 'it')], 's');
    const one = await showProperty(store, 1, 'en');
    assert.deepEqual(one?.detail.descriptions, { headline: 'A hotel' });
    assert.equal(await showProperty(store, 1, 'it'), undefined);
    const names = await propertyNames(store, [1, 2, 3, 404]);
    assert.deepEqual(Object.fromEntries(names), {
      1: { name: 'Hotel 1', stars: 3 },
      2: { name: 'Due', stars: null },
      3: { name: 'Solo italiano', stars: 3 },
    });
    await assert.rejects(showProperty(store, -1), RangeError);
    await store.close();
  });

  it('stores reference lists per language, rewriting only lists that changed', async () => {
    const { store } = openStore();
    const lists = {
      categories: [{ id: '1', name: 'Hotel' }],
      room_amenities: [{ id: 'r1', name: 'Wi-Fi' }],
    };
    assert.equal(await store.upsertReferenceLists('en', lists), 2);
    assert.equal(await store.upsertReferenceLists('en', lists), 0);
    assert.equal(
      await store.upsertReferenceLists('en', { ...lists, categories: [{ id: '1', name: 'Inn' }] }),
      1,
    );
    assert.deepEqual((await store.getReferenceLists('en')).categories, [{ id: '1', name: 'Inn' }]);
    assert.deepEqual(await store.getReferenceLists('it'), {});
    await store.close();
  });

  it('keeps its content across reopening, and counts rows per country and language', async () => {
    const { store, path } = openStore(() => Date.parse('2026-01-02T03:04:05Z'));
    await store.upsertProperties([rec(1), rec(2), rec(1, {}, 'it')], 's');
    await store.markInactiveExcept('IT', 'en', [1], 's');
    await store.upsertReferenceLists('en', { categories: [{ id: '1', name: 'Hotel' }] });
    await store.close();
    await store.close(); // idempotent

    const reader = openSqliteCatalogueStore({ path, readonly: true });
    assert.deepEqual(await reader.stats(), {
      properties: [
        {
          countryCode: 'IT',
          language: 'en',
          active: 1,
          inactive: 1,
          lastSeenAt: '2026-01-02T03:04:05.000Z',
        },
        {
          countryCode: 'IT',
          language: 'it',
          active: 1,
          inactive: 0,
          lastSeenAt: '2026-01-02T03:04:05.000Z',
        },
      ],
      referenceLists: [
        { language: 'en', list: 'categories', items: 1, updatedAt: '2026-01-02T03:04:05.000Z' },
      ],
    });
    await reader.close();
  });
});
