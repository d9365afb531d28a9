/**
 * The local Temporal server of `npm run temporal`: a persistent SQLite DB, the UI, our search
 * attributes, and workflows that survive a restart on the same DB file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { ALL_SEARCH_ATTRIBUTE_KEYS, OrderEventsDeliveryKey } from '../src/shared/search-attributes';
import { cachedCliPath, resolveTemporalCli } from '../tools/temporal-server/cli-binary';
import {
  DEV_SERVER_DYNAMIC_CONFIG,
  ensureSearchAttributes,
  freePort,
  startDevServer,
} from '../tools/temporal-server/dev-server';

describe('the local Temporal dev server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-devserver-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves the CLI without building it again once it is cached', async () => {
    const lines: string[] = [];
    const cli = await resolveTemporalCli({ log: (l) => lines.push(l) });
    assert.equal(cli.kind, 'binary');
    assert.deepEqual(lines, [], 'no build was announced');
    if (cli.kind === 'binary' && cli.source === 'cache') assert.equal(cli.path, cachedCliPath());
  });

  it('serves the UI, registers our search attributes, and keeps workflows across a restart', async () => {
    const dbFile = join(dir, 'temporal.db');
    const port = await freePort();
    const uiPort = await freePort();
    const workflowId = `survives-restart-${Date.now()}`;

    let server = await startDevServer({ port, uiPort, dbFile });
    try {
      const ui = await fetch(`${server.uiUrl}/`);
      assert.equal(ui.status, 200, 'an HTTP GET of the UI answers 200');
      const connection = await Connection.connect({ address: server.address });
      try {
        const client = new Client({ connection });
        // No worker polls this queue: the workflow stays open, as a booking waiting would.
        await client.workflow.start('controlNoop', {
          taskQueue: `nobody-${workflowId}`,
          workflowId,
          args: ['x'],
        });
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }

    server = await startDevServer({ port, uiPort, dbFile, headless: true });
    try {
      const connection = await Connection.connect({ address: server.address });
      try {
        const described = await new Client({ connection }).workflow
          .getHandle(workflowId)
          .describe();
        assert.equal(described.status.name, 'RUNNING');
        const attrs = await connection.operatorService.listSearchAttributes({
          namespace: 'default',
        });
        for (const key of ALL_SEARCH_ATTRIBUTE_KEYS) {
          assert.ok(key.name in (attrs.customAttributes ?? {}), `${key.name} registered`);
        }
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }
  });

  it('runs without forceSearchAttributesCacheRefreshOnRead, and a search attribute added later is usable once ensured', async () => {
    assert.ok(
      !('system.forceSearchAttributesCacheRefreshOnRead' in DEV_SERVER_DYNAMIC_CONFIG),
      'a setting Temporal says never to use in production',
    );
    const server = await startDevServer({ headless: true });
    try {
      const connection = await Connection.connect({ address: server.address });
      try {
        // An existing namespace that lacks one of ours (an older DB file, a plain dev server).
        await connection.operatorService.removeSearchAttributes({
          namespace: 'default',
          searchAttributes: [OrderEventsDeliveryKey.name],
        });
        await assert.rejects(
          connection.workflowService.countWorkflowExecutions({
            namespace: 'default',
            query: `${OrderEventsDeliveryKey.name} IS NOT NULL`,
          }),
          /not a valid search attribute/,
        );
        await ensureSearchAttributes(connection);
        const handle = await new Client({ connection }).workflow.start('controlNoop', {
          taskQueue: `nobody-${Date.now()}`,
          workflowId: `with-added-attribute-${Date.now()}`,
          args: ['x'],
          typedSearchAttributes: [{ key: OrderEventsDeliveryKey, value: 'DELIVERED' }],
        });
        const described = await handle.describe();
        assert.equal(described.typedSearchAttributes.get(OrderEventsDeliveryKey), 'DELIVERED');
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }
  });

  it('the cluster setup script registers our search attributes on a new namespace and returns once queries accept them', async (t) => {
    const cli = await resolveTemporalCli();
    if (cli.kind !== 'binary') return t.skip('no Temporal CLI binary for the script');
    const server = await startDevServer({ headless: true });
    try {
      const namespace = `setup-check-${Date.now()}`;
      const run = spawnSync(
        'sh',
        [join(__dirname, '..', 'deploy', 'temporal', 'setup-namespace.sh')],
        {
          encoding: 'utf8',
          timeout: 240_000,
          env: {
            PATH: `${dirname(cli.path)}:${process.env.PATH ?? ''}`,
            HOME: process.env.HOME,
            TEMPORAL_ADDRESS: server.address,
            TEMPORAL_NAMESPACE: namespace,
          },
        },
      );
      assert.equal(run.status, 0, run.stderr || run.stdout);
      assert.match(run.stdout, new RegExp(`Search attributes usable on ${namespace}`));
      const connection = await Connection.connect({ address: server.address });
      try {
        // Usable at once: a start that sets one is accepted, and a query naming all of them.
        const handle = await new Client({ connection, namespace }).workflow.start('controlNoop', {
          taskQueue: `nobody-${namespace}`,
          workflowId: `after-setup-${namespace}`,
          args: ['x'],
          typedSearchAttributes: [{ key: OrderEventsDeliveryKey, value: 'DELIVERED' }],
        });
        assert.equal(
          (await handle.describe()).typedSearchAttributes.get(OrderEventsDeliveryKey),
          'DELIVERED',
        );
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }
  });
});
