/**
 * The local catalogue from the command line, the tool in a child process as users run it:
 * `content sync` against the simulator (IT: 470 properties over 3 pages) through a worker that has
 * the catalogue store, then `content search`, `content show` and the availability `search`
 * reading the same SQLite file (CATALOGUE_DB_PATH), and the hints when there is nothing to read.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createBookingWorker } from '../../src/build-worker';
import {
  openSqliteCatalogueStore,
  type CatalogueStore,
  type ContentSyncResult,
  type PropertySummary,
} from '../../src/catalogue';
import { HotelApiClient } from '../../src/hotel-api';
import {
  registerTestNamespace,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
} from '../helpers/temporal';
import { cli, explain, json, startCliStack, type CliRun, type CliStack } from './cli-process';

const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

interface SearchJson {
  source: string;
  country: string;
  count: number;
  syncedAt: string | null;
  properties: PropertySummary[];
}

interface AvailabilityJson {
  properties: {
    propertyId: number;
    name: string | null;
    stars: number | null;
    nameSource: 'store' | 'supplier' | null;
  }[];
}

describe('content sync, content search and content show with the local catalogue', () => {
  let s: CliStack;
  let dir: string;
  let store: CatalogueStore;
  let connection: NativeConnection;
  let hotelApi: HotelApiClient;
  let worker: Worker;
  let workerRun: Promise<void>;
  /** The tool, configured like the worker: its task queue and its catalogue file. */
  let run: (...args: string[]) => Promise<CliRun>;
  /** The tool pointed at a catalogue file that does not exist. */
  let runWithoutStore: (...args: string[]) => Promise<CliRun>;

  const detailCalls = () => s.stack.simulator!.requests().byEndpoint['content-detail']?.total ?? 0;

  before(async () => {
    s = await startCliStack('cli-content-store');
    dir = mkdtempSync(join(tmpdir(), 'cli-content-store-'));
    const dbPath = join(dir, 'catalogue.db');
    // The stack's own worker has no catalogue store: content syncs go to a queue of their own,
    // polled by a worker that has one.
    const taskQueue = uniqueTaskQueue('cli-content-sync');
    // `content sync --country IT` starts `content-sync-IT-en`, the id the product fixes per country
    // and language: in a namespace of its own, not another test file's run of the same id in
    // `default` (the command would wait for that one, on its queue, with its catalogue).
    const namespace = `cli-content-${randomUUID().slice(0, 8)}`;
    store = openSqliteCatalogueStore({ path: dbPath });
    hotelApi = new HotelApiClient(s.stack.config.hotelApi);
    const options = temporalConnectionOptions(s.stack.config.temporal);
    const admin = await Connection.connect(options);
    await registerTestNamespace(admin, namespace, 1).finally(() => admin.close());
    connection = await NativeConnection.connect(options);
    worker = await createBookingWorker({
      workflowBundle: await testWorkflowBundle(),
      connection,
      namespace,
      taskQueue,
      hotelApi,
      dataConverter: testDataConverter,
      catalogueStore: store,
      shutdownGraceTime: '1s',
    });
    workerRun = worker.run();
    run = cli({
      ...s.env,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      CATALOGUE_DB_PATH: dbPath,
    });
    runWithoutStore = cli({ ...s.env, CATALOGUE_DB_PATH: join(dir, 'missing', 'catalogue.db') });
  });

  after(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await workerRun?.catch(() => undefined);
    await connection?.close();
    await hotelApi?.close();
    await store?.close();
    await s?.stack.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('without a catalogue: content search is exit 1 suggesting content sync; show and search ask the supplier', async () => {
    const [human, machine, italian, show, availability] = await Promise.all([
      runWithoutStore('content', 'search', '--country', 'IT'),
      runWithoutStore('--json', 'content', 'search', '--country', 'IT', '--city', 'Rome'),
      runWithoutStore('content', 'search', '--country', 'it', '--language', 'it'),
      runWithoutStore('content', 'show', '1001'),
      runWithoutStore(
        '--json',
        'search',
        '--property',
        '1002',
        '--checkin',
        day(30),
        '--checkout',
        day(32),
      ),
    ]);
    assert.equal(human.code, 1, explain(human));
    assert.match(human.stderr, /There is no local catalogue at .*missing.*catalogue\.db yet/);
    assert.match(human.stderr, /Fill it with `content sync --country IT`/);
    assert.equal(human.stdout, '');

    assert.equal(machine.code, 1, explain(machine));
    const error = json<{ error: { code: string; message: string } }>(machine).error;
    assert.equal(error.code, 'CATALOGUE_EMPTY');
    assert.match(error.message, /content sync --country IT/);

    assert.equal(italian.code, 1, explain(italian));
    assert.match(italian.stderr, /`content sync --country IT --language it`/);

    assert.equal(show.code, 0, explain(show));
    assert.match(show.stdout, /│ Name +│ Residenza Il Giardino/);
    assert.match(show.stdout, /│ Source +│ supplier \(no local catalogue\)/);

    assert.equal(availability.code, 0, explain(availability));
    const [first] = json<AvailabilityJson>(availability).properties;
    assert.deepEqual(
      [first?.name, first?.stars, first?.nameSource],
      ['Locanda La Pergola', 2, 'supplier'],
    );
  });

  it('content sync with no worker on the task queue is exit 3, and bad arguments are exit 2', async () => {
    const [noWorker, country, language] = await Promise.all([
      cli({ ...s.env, TEMPORAL_TASK_QUEUE: uniqueTaskQueue('nobody-polls') })(
        'content',
        'sync',
        '--country',
        'IT',
      ),
      run('content', 'sync', '--country', 'Italy'),
      run('content', 'sync', '--country', 'IT', '--language', 'fr'),
    ]);
    assert.equal(noWorker.code, 3, explain(noWorker));
    assert.match(noWorker.stderr, /No worker polls task queue 'test-nobody-polls-/);
    assert.equal(country.code, 2, explain(country));
    assert.match(country.stderr, /--country: "Italy" is not a 2-letter/);
    assert.equal(language.code, 2, explain(language));
    assert.match(language.stderr, /--language: "fr" is not one of en, it/);
  });

  it('content sync --country IT fills the catalogue (table), and again reports everything unchanged (JSON)', async () => {
    const first = await run('content', 'sync', '--country', 'IT', '--details-per-second', '0');
    assert.equal(first.code, 0, explain(first));
    assert.match(first.stdout, /Syncing IT \(en\): workflow content-sync-IT-en on task queue/);
    assert.match(
      first.stdout,
      /│ Country +│ Language +│ Pages +│ Properties +│ Inserted +│ Updated +│ Unchanged +│ Deactivated +│ Duration +│ Properties\/s/,
    );
    assert.match(
      first.stdout,
      /│ IT +│ en +│ 3 +│ 470 +│ 470 +│ 0 +│ 0 +│ 0 +│ [\d.]+ m?s +│ [\d.]+ +│/,
    );
    assert.match(first.stdout, /Search it with: content search --country IT/);
    assert.equal((await store.activeIds('IT', 'en')).length, 470);

    const again = await run(
      '--json',
      'content',
      'sync',
      '--country',
      'it',
      '--details-per-second',
      '0',
    );
    assert.equal(again.code, 0, explain(again));
    const { results } = json<{ results: ContentSyncResult[] }>(again);
    assert.equal(results.length, 1);
    const [r] = results;
    assert.equal(r?.countryCode, 'IT');
    assert.equal(r?.language, 'en');
    assert.equal(r?.pages, 3);
    assert.equal(r?.properties, 470);
    assert.deepEqual([r?.inserted, r?.updated, r?.unchanged, r?.deactivated], [0, 0, 470, 0]);
    assert.ok(r!.durationMs > 0);
  });

  it('content search filters the catalogue by city and stars, best first; no supplier call', async () => {
    const expected = await store.search({
      country: 'IT',
      city: 'Rome',
      minStars: 4,
      language: 'en',
      limit: 1000,
    });
    assert.ok(expected.length > 0, 'the simulator has 4-star properties in Rome');
    const requestsBefore = s.stack.simulator!.requests().total;

    const [human, machine, limited, italian, none] = await Promise.all([
      run('content', 'search', '--country', 'IT', '--city', 'Rome', '--min-stars', '4'),
      run(
        '--json',
        'content',
        'search',
        '--country',
        'IT',
        '--city',
        'Rome',
        '--min-stars',
        '4',
        '--limit',
        '1000',
      ),
      run('--json', 'content', 'search', '--country', 'it', '--city', 'rome', '--limit', '5'),
      run('content', 'search', '--country', 'IT', '--language', 'it'),
      run('content', 'search', '--country', 'IT', '--city', 'Atlantis'),
    ]);

    assert.equal(human.code, 0, explain(human));
    assert.match(
      human.stdout,
      /\d+ propert(y|ies) \(IT, city Rome, 4\+ stars; en\) from the local catalogue, last synced \d{4}-/,
    );
    assert.match(human.stdout, /│ Id +│ Name +│ City +│ Stars +│ Guest rating/);
    assert.match(human.stdout, new RegExp(`│ ${expected[0]!.id} +│ `));

    assert.equal(machine.code, 0, explain(machine));
    const found = json<SearchJson>(machine);
    assert.equal(found.source, 'store');
    assert.equal(found.count, expected.length);
    assert.deepEqual(
      found.properties.map((p) => p.id),
      expected.map((p) => p.id),
    );
    for (const p of found.properties) {
      assert.equal(p.city, 'Rome');
      assert.ok(p.stars !== null && p.stars >= 4, `${p.id} has ${p.stars} stars`);
    }
    const stars = found.properties.map((p) => p.stars!);
    assert.deepEqual(
      stars,
      [...stars].sort((a, b) => b - a),
      'best first',
    );

    // Case-insensitive city and country; any stars; at most --limit rows.
    assert.equal(limited.code, 0, explain(limited));
    const anyStars = json<SearchJson>(limited);
    assert.equal(anyStars.country, 'IT');
    assert.equal(anyStars.count, 5);
    assert.ok(anyStars.properties.every((p) => p.city === 'Rome'));

    // Only the en pass has run: the it slice is empty, and the hint says which sync fills it.
    assert.equal(italian.code, 1, explain(italian));
    assert.match(italian.stderr, /has no it content for IT \(it has: IT en \(470\)\)/);
    assert.match(italian.stderr, /`content sync --country IT --language it`/);

    // A synced country with no match is a search that found nothing, not an error.
    assert.equal(none.code, 0, explain(none));
    assert.match(none.stdout, /^0 properties .*\nNo property matches these filters\./);

    assert.equal(s.stack.simulator!.requests().total, requestsBefore, 'the supplier was not asked');
  });

  it('content show reads the catalogue and says so; --live and unknown ids ask the supplier', async () => {
    const before = detailCalls();
    const [human, machine] = await Promise.all([
      run('content', 'show', '1001'),
      run('--json', 'content', 'show', '1001'),
    ]);
    assert.equal(human.code, 0, explain(human));
    assert.match(human.stdout, /│ Name +│ Residenza Il Giardino/);
    assert.match(human.stdout, /│ Country +│ Italy \(IT\)/);
    assert.match(human.stdout, /│ Source +│ store \(last synced \d{4}-/);
    assert.equal(machine.code, 0, explain(machine));
    const shown = json<{
      source: string;
      id: number;
      name: string;
      catalogue: { active: boolean; countryCode: string };
    }>(machine);
    assert.equal(shown.source, 'store');
    assert.equal(shown.id, 1001);
    assert.equal(shown.name, 'Residenza Il Giardino');
    assert.deepEqual([shown.catalogue.active, shown.catalogue.countryCode], [true, 'IT']);
    assert.equal(detailCalls(), before, 'no supplier detail call');

    const [supplier, unknown] = await Promise.all([
      run('--json', 'content', 'show', '1001', '--live'),
      run('content', 'show', '999999'),
    ]);
    assert.equal(supplier.code, 0, explain(supplier));
    assert.equal(json<{ source: string; id: number }>(supplier).source, 'supplier');
    assert.equal(unknown.code, 1, explain(unknown));
    assert.match(unknown.stderr, /Not found at the supplier/);
    assert.equal(detailCalls(), before + 2);
  });

  it('the availability search names properties from the catalogue, without detail calls', async () => {
    const args = ['search', '--property', '1001,1002', '--checkin', day(30), '--checkout', day(32)];
    const before = detailCalls();
    const [human, machine] = await Promise.all([run(...args), run('--json', ...args)]);
    assert.equal(human.code, 0, explain(human));
    assert.match(human.stdout, /│ Property +│ Stars +│ Room +│ Board/);
    assert.match(human.stdout, /│ 1001 Residenza Il Giardino +│ +│ /, 'an unrated property');
    assert.match(human.stdout, /│ 1002 Locanda La Pergola +│ 2 +│ /);

    assert.equal(machine.code, 0, explain(machine));
    const { properties } = json<AvailabilityJson>(machine);
    const stored = await store.names([1001, 1002], 'en');
    assert.deepEqual(
      properties.map((p) => [p.propertyId, p.name, p.stars, p.nameSource]),
      [1001, 1002].map((id) => [id, stored.get(id)!.name, stored.get(id)!.stars, 'store']),
    );
    assert.equal(detailCalls(), before, 'names and stars came from the catalogue');
  });
});
