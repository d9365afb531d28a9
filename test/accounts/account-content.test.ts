/**
 * Content per supplier account, from the command line as users run it: `content sync --supplier
 * eu` runs the sync on eu's task queue, whose worker writes eu's own catalogue file (beside
 * CATALOGUE_DB_PATH: src/shared/supplier-accounts.ts `catalogueDbPathFor`); `content search
 * --supplier eu` reads that file; the default account's catalogue stays as it was. An account
 * nobody configured, or that no worker serves, is told in one line.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { createBookingWorker, createSupplierAccountWorker } from '../../src/build-worker';
import { openSqliteCatalogueStore, type CatalogueStore } from '../../src/catalogue';
import { HotelApiClient } from '../../src/hotel-api';
import { catalogueDbPathFor } from '../../src/shared/supplier-accounts';
import {
  registerTestNamespace,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
} from '../helpers/temporal';
import { cli, explain, json, startCliStack, type CliRun, type CliStack } from '../cli/cli-process';

describe('content per supplier account', () => {
  let s: CliStack;
  let dir: string;
  let dbPath: string;
  const stores: CatalogueStore[] = [];
  let connection: NativeConnection;
  const clients: HotelApiClient[] = [];
  const workers: Worker[] = [];
  const running: Promise<void>[] = [];
  let run: (...args: string[]) => Promise<CliRun>;

  before(async () => {
    s = await startCliStack('account-content');
    dir = mkdtempSync(join(tmpdir(), 'account-content-'));
    dbPath = join(dir, 'catalogue.db');
    // `content-sync-IT-en-eu` is an id the product fixes: a namespace of its own.
    const namespace = `account-content-${randomUUID().slice(0, 8)}`;
    const taskQueue = uniqueTaskQueue('account-content');
    const options = temporalConnectionOptions(s.stack.config.temporal);
    const admin = await Connection.connect(options);
    await registerTestNamespace(admin, namespace, 1).finally(() => admin.close());
    connection = await NativeConnection.connect(options);
    const store = (path: string) => {
      const opened = openSqliteCatalogueStore({ path });
      stores.push(opened);
      return opened;
    };
    const client = () => {
      const c = new HotelApiClient(s.stack.config.hotelApi);
      clients.push(c);
      return c;
    };
    workers.push(
      await createBookingWorker({
        workflowBundle: await testWorkflowBundle(),
        connection,
        namespace,
        taskQueue,
        hotelApi: client(),
        dataConverter: testDataConverter,
        catalogueStore: store(dbPath),
        accounts: [
          { id: 'default', enabled: true },
          { id: 'eu', enabled: true },
          { id: 'us', enabled: true },
        ],
        shutdownGraceTime: '1s',
      }),
      // eu's worker, with eu's catalogue; nobody serves us.
      await createSupplierAccountWorker({
        connection,
        namespace,
        taskQueue,
        account: 'eu',
        hotelApi: client(),
        catalogueStore: store(catalogueDbPathFor(dbPath, 'eu')),
        dataConverter: testDataConverter,
        shutdownGraceTime: '1s',
      }),
    );
    for (const w of workers) running.push(w.run());
    const accounts = ['eu', 'us'].map((id) => ({ id, baseUrl: s.stack.supplierUrl }));
    run = cli({
      ...s.env,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      CATALOGUE_DB_PATH: dbPath,
      SUPPLIER_ACCOUNTS: JSON.stringify(accounts),
    });
  });

  after(async () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    await Promise.all(running.map((r) => r.catch(() => undefined)));
    await connection?.close();
    for (const c of clients) await c.close();
    for (const st of stores) await st.close();
    await s?.stack.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("content sync --supplier eu fills eu's catalogue alone; content search --supplier eu reads it", async () => {
    const synced = await run(
      '--json',
      'content',
      'sync',
      '--country',
      'IT',
      '--supplier',
      'eu',
      '--details-per-second',
      '0',
    );
    assert.equal(synced.code, 0, explain(synced));
    const [result] = json<{ results: { properties: number }[] }>(synced).results;
    assert.ok((result?.properties ?? 0) > 0, explain(synced));

    const [eu, own] = await Promise.all([
      run('--json', 'content', 'search', '--country', 'IT', '--supplier', 'eu'),
      run('content', 'search', '--country', 'IT'),
    ]);
    assert.equal(eu.code, 0, explain(eu));
    assert.ok(json<{ count: number }>(eu).count > 0);
    // The default account's catalogue has no content of IT: the sync wrote eu's file only.
    assert.equal(own.code, 1, explain(own));
    assert.match(own.stderr, /has no en content for IT|no local catalogue/);
  });

  it('an account nobody configured is one line naming --supplier; one no worker serves is exit 3', async () => {
    const [unknown, unserved] = await Promise.all([
      run('content', 'search', '--country', 'IT', '--supplier', 'nowhere'),
      run('content', 'sync', '--country', 'IT', '--supplier', 'us'),
    ]);
    assert.equal(unknown.code, 2, explain(unknown));
    assert.match(unknown.stderr, /--supplier: no account 'nowhere' is configured/);
    assert.equal(unknown.stderr.trim().split('\n').length, 1, explain(unknown));
    assert.equal(unserved.code, 3, explain(unserved));
    assert.match(unserved.stderr, /-supplier-us/);
  });
});
