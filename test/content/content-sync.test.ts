/**
 * Content sync end to end: the simulator's catalogue (several pages of IT), the real hotel API
 * client, real workers on a real Temporal dev server, a SQLite catalogue in a temp dir.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Worker } from '@temporalio/worker';
import { createBookingWorker } from '../../src/build-worker';
import {
  CONTENT_PAGE_SIZE,
  contentPageCount,
  contentSyncProgress,
  ensureContentSchedule,
  openSqliteCatalogueStore,
  propertyNames,
  runContentSync,
  searchCatalogue,
  showProperty,
  type CatalogueStore,
  type ContentSyncResult,
} from '../../src/catalogue';
import {
  HotelApiClient,
  type CallOptions,
  type PropertyDetail,
  type PropertyDetailParams,
  type PropertyListParams,
  type PropertyListResponse,
} from '../../src/hotel-api';
import { buildSimulator, type Simulator, type SimulatorOptions } from '../../tools/simulator';
import { propertiesOf } from '../../tools/simulator/catalogue';
import { COMPANY, eventually, hotelApiConfig } from '../helpers/booking-stack';
import {
  connectTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';

// --- the stack ------------------------------------------------------------------------------

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The real client, also counting what it sent: list calls by `lang:page`, details by `lang:id`. */
class CountingHotelApi extends HotelApiClient {
  readonly listCalls = new Map<string, number>();
  readonly detailCalls = new Map<string, number>();

  override listProperties(
    q: PropertyListParams,
    opts?: CallOptions,
  ): Promise<PropertyListResponse> {
    bump(this.listCalls, `${q.languageCode ?? 'en'}:${q.page ?? 1}`);
    return super.listProperties(q, opts);
  }

  override getProperty(q: PropertyDetailParams, opts?: CallOptions): Promise<PropertyDetail> {
    bump(this.detailCalls, `${q.languageCode ?? 'en'}:${q.hotelId}`);
    return super.getProperty(q, opts);
  }

  listed(language: string, page: number): number {
    return this.listCalls.get(`${language}:${page}`) ?? 0;
  }

  detailed(language: string, id: number): number {
    return this.detailCalls.get(`${language}:${id}`) ?? 0;
  }

  totalDetails(): number {
    let n = 0;
    for (const v of this.detailCalls.values()) n += v;
    return n;
  }

  resetCounts(): void {
    this.listCalls.clear();
    this.detailCalls.clear();
  }
}

interface RunningWorker {
  readonly worker: Worker;
  stop(): Promise<void>;
}

interface ContentStack {
  readonly temporal: TestTemporal;
  readonly sim: Simulator;
  /** `http://127.0.0.1:<port>`, for the `/__sim` control routes. */
  readonly simOrigin: string;
  readonly api: CountingHotelApi;
  readonly taskQueue: string;
  /** A new, empty catalogue in the stack's temp dir. */
  openStore(): CatalogueStore;
  startWorker(
    store: CatalogueStore,
    options?: { shutdownGraceTime?: string },
  ): Promise<RunningWorker>;
  close(): Promise<void>;
}

async function startContentStack(
  name: string,
  simulator: SimulatorOptions = {},
): Promise<ContentStack> {
  const sim = buildSimulator({
    companies: [{ ...COMPANY, active: true }],
    inspection: true,
    seed: 7,
    ...simulator,
  });
  const { origin } = await sim.listen(0, '127.0.0.1');
  const temporal = await connectTemporal();
  const api = new CountingHotelApi(hotelApiConfig(origin, { maxConnections: 32 }));
  const dir = mkdtempSync(join(process.env.TEST_WORK_DIR ?? tmpdir(), `content-${name}-`));
  const taskQueue = uniqueTaskQueue(name);
  const stores: CatalogueStore[] = [];
  const workers = new Set<RunningWorker>();
  return {
    temporal,
    sim,
    simOrigin: origin,
    api,
    taskQueue,
    openStore() {
      const store = openSqliteCatalogueStore({ path: join(dir, `catalogue-${stores.length}.db`) });
      stores.push(store);
      return store;
    },
    async startWorker(store, options = {}) {
      const worker = await createBookingWorker({
        workflowBundle: await testWorkflowBundle(),
        connection: temporal.nativeConnection,
        taskQueue,
        hotelApi: api,
        catalogueStore: store,
        dataConverter: testDataConverter,
        shutdownGraceTime: options.shutdownGraceTime ?? '2s',
      });
      const running = worker.run();
      const handle: RunningWorker = {
        worker,
        async stop() {
          if (!workers.delete(handle)) return;
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await running;
        },
      };
      workers.add(handle);
      return handle;
    },
    async close() {
      for (const w of [...workers]) await w.stop();
      await api.close();
      await temporal.close();
      await sim.close();
      for (const s of stores) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Ids of the simulator's active properties of a country, ascending (the list's order). */
function activeIdsOf(sim: Simulator, countryCode: string): number[] {
  const inactive = new Set(sim.inactiveProperties());
  return propertiesOf(countryCode)
    .map((p) => p.id)
    .filter((id) => !inactive.has(id))
    .sort((a, b) => a - b);
}

/** `POST /__sim/properties/{id}/deactivate`, over HTTP as an operator's script would. */
async function deactivateUpstream(stack: ContentStack, id: number): Promise<void> {
  const res = await fetch(`${stack.simOrigin}/__sim/properties/${id}/deactivate`, {
    method: 'POST',
  });
  assert.equal(res.status, 200, `deactivating ${id}`);
  assert.deepEqual(await res.json(), { id, active: false });
}

/** Detail fetches unthrottled in tests that are not about throttling. */
const FAST = { detailConcurrency: 16, detailsPerSecond: 0 } as const;

function rate(result: ContentSyncResult): string {
  return (result.properties / (result.durationMs / 1000)).toFixed(1);
}

// --- tests ----------------------------------------------------------------------------------

describe('content sync of the simulator catalogue', () => {
  let stack: ContentStack;
  let store: CatalogueStore;
  let worker: RunningWorker;
  let itIds: number[];

  before(async () => {
    stack = await startContentStack('content');
    store = stack.openStore();
    worker = await stack.startWorker(store);
    itIds = activeIdsOf(stack.sim, 'IT');
    // The catalogue this suite is about: several pages, the last one partial.
    assert.ok(itIds.length > 2 * CONTENT_PAGE_SIZE, `IT has ${itIds.length} active properties`);
  });
  after(async () => {
    await worker.stop();
    await stack.close();
  });

  it('stores every active IT property with its English and Italian details', async () => {
    const run = (language: 'en' | 'it') =>
      runContentSync(stack.temporal.client, {
        countryCode: 'IT',
        language,
        taskQueue: stack.taskQueue,
        ...FAST,
      });
    const [en, it] = await Promise.all([run('en'), run('it')]);
    for (const [language, result] of [
      ['en', en],
      ['it', it],
    ] as const) {
      assert.equal(result.language, language);
      assert.equal(result.countryCode, 'IT');
      assert.equal(result.pages, contentPageCount(itIds.length));
      assert.ok(result.pages >= 3);
      assert.equal(result.properties, itIds.length);
      assert.equal(result.inserted, itIds.length);
      assert.equal(result.updated, 0);
      assert.equal(result.unchanged, 0);
      assert.equal(result.deactivated, 0);
      assert.ok(result.durationMs > 0);
    }

    // What the supplier received: each page once, each detail once, per language.
    const requests = stack.sim.requests().byEndpoint;
    assert.equal(requests['content-list']?.total, 2 * en.pages);
    assert.equal(requests['content-detail']?.total, 2 * itIds.length);
    assert.equal(requests['reference-list']?.total, 2);

    const stats = await store.stats();
    assert.deepEqual(
      stats.properties.map((s) => [s.countryCode, s.language, s.active, s.inactive]),
      [
        ['IT', 'en', itIds.length, 0],
        ['IT', 'it', itIds.length, 0],
      ],
    );
    assert.equal(stats.referenceLists.length, 10, 'five lists in each language');

    const id = itIds[0]!;
    const english = await showProperty(store, id, 'en');
    const italian = await showProperty(store, id, 'it');
    const descriptions = (p: typeof english) =>
      p?.detail.descriptions as { headline: string; location: string };
    assert.match(descriptions(english).location, /is located at/);
    assert.match(descriptions(italian).location, /si trova in/);
    assert.equal(english?.active, true);
    assert.equal(english?.countryCode, 'IT');

    const rome = await searchCatalogue(store, { country: 'IT', city: 'Rome', minStars: 4 });
    assert.ok(rome.length > 0);
    assert.ok(rome.every((p) => p.city === 'Rome' && (p.stars ?? 0) >= 4));
    const roma = await searchCatalogue(store, {
      country: 'IT',
      city: 'Rome',
      minStars: 4,
      language: 'it',
    });
    assert.deepEqual(roma.map((p) => p.id).sort(), rome.map((p) => p.id).sort());
    assert.ok(roma.every((p) => p.city === 'Roma'));

    const names = await propertyNames(store, [id, 999_999]);
    assert.deepEqual([...names.keys()], [id]);
    assert.equal(names.get(id)?.name, english?.name);
  });

  it('reports nothing inserted or updated when a second sync finds nothing changed', async () => {
    stack.api.resetCounts();
    const again = await runContentSync(stack.temporal.client, {
      countryCode: 'IT',
      language: 'en',
      taskQueue: stack.taskQueue,
      ...FAST,
    });
    assert.equal(again.inserted, 0);
    assert.equal(again.updated, 0);
    assert.equal(again.unchanged, itIds.length);
    assert.equal(again.deactivated, 0);
    assert.equal(again.properties, itIds.length);
    // A new pass really fetched everything again (it is the hash that found no change).
    assert.equal(stack.api.totalDetails(), itIds.length);
  });

  it('marks a property deactivated upstream inactive in its next pass, without deleting it', async () => {
    // The first property of page 1: every later page shifts by one, the worst case for paging.
    const gone = itIds[0]!;
    await deactivateUpstream(stack, gone);
    const result = await runContentSync(stack.temporal.client, {
      countryCode: 'IT',
      language: 'en',
      taskQueue: stack.taskQueue,
      ...FAST,
    });
    assert.equal(result.deactivated, 1);
    assert.equal(result.properties, itIds.length - 1);
    assert.equal(result.inserted, 0);
    assert.equal(result.updated, 0);

    const row = await showProperty(store, gone, 'en');
    assert.ok(row, 'the row is kept');
    assert.equal(row.active, false);
    assert.ok(row.deactivatedAt);
    assert.equal(row.detail.id, gone, 'its content is kept');
    assert.equal((await showProperty(store, gone, 'it'))?.active, true, 'until the it pass runs');
    const hidden = await searchCatalogue(store, { country: 'IT', limit: 1000 });
    assert.equal(hidden.length, itIds.length - 1);
    assert.ok(!hidden.some((p) => p.id === gone));
    assert.ok(
      (await searchCatalogue(store, { country: 'IT', includeInactive: true, limit: 1000 })).some(
        (p) => p.id === gone && !p.active,
      ),
    );

    // A repeat finds nothing new to deactivate; the Italian pass catches up.
    const repeat = await runContentSync(stack.temporal.client, {
      countryCode: 'IT',
      language: 'en',
      taskQueue: stack.taskQueue,
      ...FAST,
    });
    assert.equal(repeat.deactivated, 0);
    const italian = await runContentSync(stack.temporal.client, {
      countryCode: 'IT',
      language: 'it',
      taskQueue: stack.taskQueue,
      ...FAST,
    });
    assert.equal(italian.deactivated, 1);
    assert.equal((await showProperty(store, gone, 'it'))?.active, false);
  });

  it('runs a pass from an idempotent schedule', async () => {
    const { client } = stack.temporal;
    const scheduleId = 'content-sync-FR-en';
    await client.schedule
      .getHandle(scheduleId)
      .delete()
      .catch(() => undefined); // left by an interrupted earlier run on a shared server
    try {
      const first = await ensureContentSchedule(client, {
        countryCode: 'FR',
        language: 'en',
        interval: '1h',
        taskQueue: stack.taskQueue,
        ...FAST,
      });
      assert.deepEqual(first, { scheduleId, created: true });
      const second = await ensureContentSchedule(client, {
        countryCode: 'FR',
        language: 'en',
        interval: '6h',
        taskQueue: stack.taskQueue,
        ...FAST,
      });
      assert.deepEqual(second, { scheduleId, created: false });

      const handle = client.schedule.getHandle(scheduleId);
      const described = await handle.describe();
      assert.deepEqual(
        described.spec.intervals?.map((i) => i.every),
        [6 * 3_600_000],
      );
      assert.equal(described.action.workflowType, 'syncContent');
      assert.equal(described.action.taskQueue, stack.taskQueue);
      assert.deepEqual(described.action.args, [{ countryCode: 'FR', language: 'en', ...FAST }]);

      await handle.trigger();
      const workflowId = await eventually(
        async () => (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId,
        15_000,
        'the triggered action',
      );
      assert.match(workflowId, /^content-sync-FR-en/);
      const result = (await client.workflow.getHandle(workflowId).result()) as ContentSyncResult;
      assert.equal(result.countryCode, 'FR');
      assert.equal(result.properties, activeIdsOf(stack.sim, 'FR').length);
      assert.equal(result.pages, 1);
    } finally {
      await client.schedule.getHandle(scheduleId).delete();
    }
  });

  it('rejects bad arguments before starting anything', async () => {
    await assert.rejects(
      runContentSync(stack.temporal.client, {
        countryCode: 'Italy',
        language: 'en',
        taskQueue: stack.taskQueue,
      }),
      RangeError,
    );
    await assert.rejects(
      runContentSync(stack.temporal.client, {
        countryCode: 'IT',
        language: 'de' as 'en',
        taskQueue: stack.taskQueue,
      }),
      RangeError,
    );
  });
});

describe('content sync across a worker that stops mid-pass', () => {
  let stack: ContentStack;
  before(async () => {
    stack = await startContentStack('content-resume');
  });
  after(async () => {
    await stack.close();
  });

  it('resumes on a new worker without fetching completed pages again', async () => {
    const ids = activeIdsOf(stack.sim, 'IT');
    const page1 = ids.slice(0, CONTENT_PAGE_SIZE);
    const page2 = ids.slice(CONTENT_PAGE_SIZE, 2 * CONTENT_PAGE_SIZE);
    const store = stack.openStore();
    const first = await stack.startWorker(store, { shutdownGraceTime: '100ms' });
    // 100 details a second: page 2 takes about 2 s, long enough to stop the worker inside it.
    const limits = { detailConcurrency: 4, detailsPerSecond: 100, pagesPerRun: 1 };
    const pending = runContentSync(stack.temporal.client, {
      countryCode: 'IT',
      language: 'en',
      taskQueue: stack.taskQueue,
      ...limits,
    });
    pending.catch(() => undefined); // awaited below; this only avoids an unhandled rejection

    await eventually(
      async () => page2.filter((id) => stack.api.detailed('en', id) > 0).length >= 40,
      30_000,
      'page 2 in flight',
    );
    const progress = await contentSyncProgress(stack.temporal.client, {
      countryCode: 'IT',
      language: 'en',
    });
    assert.equal(progress?.phase, 'PAGES');
    assert.equal(progress?.nextPage, 2, 'page 1 is checkpointed, page 2 in flight');
    assert.equal(progress?.properties, page1.length);
    await first.stop();
    const fetchedBeforeStop = page2.filter((id) => stack.api.detailed('en', id) > 0).length;
    assert.ok(fetchedBeforeStop < page2.length, 'stopped before page 2 completed');
    assert.equal(stack.api.listed('en', 3), 0, 'page 3 not started');

    const second = await stack.startWorker(store);
    const result = await pending;
    await second.stop();

    assert.equal(result.properties, ids.length);
    assert.equal(result.inserted, ids.length, 'exact counts despite the stop');
    assert.equal(result.updated, 0);
    assert.equal(result.unchanged, 0);
    assert.equal(result.runs, result.pages, 'one page per run (continue-as-new)');

    // Page 1 was listed once and none of its details was fetched again.
    assert.equal(stack.api.listed('en', 1), 1);
    assert.ok(page1.every((id) => stack.api.detailed('en', id) === 1));
    assert.equal(stack.api.listed('en', 3), 1);
    // Page 2 resumed from its heartbeat: the re-fetches are at most the details in flight.
    const refetched = page2.filter((id) => stack.api.detailed('en', id) > 1).length;
    assert.ok(refetched <= limits.detailConcurrency + 4, `${refetched} page-2 details re-fetched`);
    // The supplier's own counts agree with ours.
    const requests = stack.sim.requests().byEndpoint;
    let listCalls = 0;
    for (const v of stack.api.listCalls.values()) listCalls += v;
    assert.equal(requests['content-list']?.total, listCalls);
    assert.ok(listCalls <= result.pages + 1, `${listCalls} list calls for ${result.pages} pages`);
    console.log(
      `[content-sync] resume: page 2 stopped after ${fetchedBeforeStop}/${page2.length} details; ` +
        `page 2 listed ${stack.api.listed('en', 2)}x, ${refetched} details re-fetched; ` +
        `${result.runs} runs`,
    );

    const stored = await store.stats();
    assert.equal(stored.properties[0]?.active, ids.length);
  });
});

describe('content sync against a supplier that fails some detail calls', () => {
  let stack: ContentStack;
  before(async () => {
    stack = await startContentStack('content-faults', { errorRate: { 'content-detail': 0.03 } });
  });
  after(async () => {
    await stack.close();
  });

  it('retries only the failed details and still counts every property once', async () => {
    const ids = activeIdsOf(stack.sim, 'IT');
    const store = stack.openStore();
    const worker = await stack.startWorker(store);
    const result = await runContentSync(stack.temporal.client, {
      countryCode: 'IT',
      language: 'en',
      taskQueue: stack.taskQueue,
      ...FAST,
    });
    await worker.stop();
    const injected = stack.sim.requests().injectedErrors;
    assert.ok(injected > 0, 'the supplier failed some detail calls');
    assert.equal(result.properties, ids.length);
    assert.equal(result.inserted, ids.length);
    assert.equal(result.updated + result.unchanged, 0);
    // Each failed call was repeated; details already stored were not fetched again.
    const extra = stack.api.totalDetails() - ids.length;
    console.log(
      `[content-sync] faults: ${injected} injected 503s, ${extra} extra detail calls, ` +
        `${(result.durationMs / 1000).toFixed(2)} s`,
    );
    assert.ok(extra >= injected);
    assert.ok(extra <= injected + 2 * FAST.detailConcurrency, `${extra} extra detail calls`);
  });
});

describe('content sync rate against a supplier answering in 20 ms', () => {
  let stack: ContentStack;
  before(async () => {
    stack = await startContentStack('content-rate', { latency: { fixedMs: 20 } });
  });
  after(async () => {
    await stack.close();
  });

  it('prints properties per second with the default limits and with the rate cap lifted', async () => {
    const runs: [string, Parameters<typeof runContentSync>[1]][] = [
      [
        'defaults (8 in flight, 50/s)',
        { countryCode: 'IT', language: 'en', taskQueue: stack.taskQueue },
      ],
      [
        '16 in flight, no rate cap',
        { countryCode: 'IT', language: 'en', taskQueue: stack.taskQueue, ...FAST },
      ],
    ];
    for (const [label, options] of runs) {
      const store = stack.openStore();
      const worker = await stack.startWorker(store);
      const started = performance.now();
      const result = await runContentSync(stack.temporal.client, options);
      const wallMs = performance.now() - started;
      await worker.stop();
      assert.equal(result.inserted, activeIdsOf(stack.sim, 'IT').length);
      console.log(
        `[content-sync] rate, ${label}: ${result.properties} properties, ${result.pages} pages in ` +
          `${(result.durationMs / 1000).toFixed(2)} s (workflow) = ${rate(result)} properties/s; ` +
          `wall ${(wallMs / 1000).toFixed(2)} s = ${(result.properties / (wallMs / 1000)).toFixed(1)}/s`,
      );
    }
  });
});
