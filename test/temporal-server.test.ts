/**
 * The local Temporal server of `npm run temporal`: a persistent SQLite DB, the UI, our search
 * attributes, and workflows that survive a restart on the same DB file.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { metricSum } from '../bench/shared/metrics';
import { ALL_SEARCH_ATTRIBUTE_KEYS, OrderEventsDeliveryKey } from '../src/shared/search-attributes';
import { cachedCliPath, resolveTemporalCli } from '../tools/temporal-server/cli-binary';
import { ensureClusterBinaries } from '../tools/temporal-server/cluster-binaries';
import { selectedRelease } from '../tools/temporal-server/selected-release';
import {
  ensureSearchAttributes,
  freePort,
  restartablePort,
  startDevServer,
  takenOwnPort,
} from '../tools/temporal-server/dev-server';

describe('the local Temporal dev server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-devserver-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the server, the UI server and the CLI without building them again once cached', async () => {
    const lines: string[] = [];
    const binaries = await ensureClusterBinaries({ log: (l) => lines.push(l) });
    const cli = await resolveTemporalCli({ log: (l) => lines.push(l) });
    assert.equal(cli.kind, 'binary');
    assert.deepEqual(lines, [], 'no build was announced');
    if (cli.kind === 'binary' && cli.source === 'cache') assert.equal(cli.path, cachedCliPath());
    if (!process.env.TEMPORAL_SERVER_PATH) {
      assert.match(
        binaries['temporal-server'],
        new RegExp(`/temporal-server/${selectedRelease()}/`),
      );
    }
  });

  it('runs the selected release and says which', async () => {
    const server = await startDevServer({ headless: true });
    try {
      assert.equal(server.serverVersion, selectedRelease());
    } finally {
      await server.stop();
    }
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
    const metricsPort = await freePort();
    const server = await startDevServer({
      headless: true,
      metricsPort,
    });
    try {
      const connection = await Connection.connect({ address: server.address });
      try {
        // With the setting on (the CLI's default unless told), every start that carries search
        // attributes and every query naming one re-reads the cluster metadata; off, they are
        // served from the server's cache.
        const client = new Client({ connection });
        const reads = () => clusterMetadataReads(`http://127.0.0.1:${metricsPort}/metrics`);
        const before = await reads();
        for (let i = 0; i < 20; i++) {
          await client.workflow.start('controlNoop', {
            taskQueue: `nobody-${Date.now()}`,
            workflowId: `with-attributes-${Date.now()}-${i}`,
            args: ['x'],
            typedSearchAttributes: [{ key: OrderEventsDeliveryKey, value: 'PENDING' }],
          });
          await connection.workflowService.countWorkflowExecutions({
            namespace: 'default',
            query: `${OrderEventsDeliveryKey.name} = 'PENDING'`,
          });
        }
        const during = (await reads()) - before;
        assert.ok(during < 5, `${during} cluster metadata reads for 20 starts and 20 queries`);
        // An existing namespace that lacks one of ours (an older DB file, a plain dev server). The
        // operator API reads the registration itself; queries may go on accepting the attribute
        // from the server's cache for up to its refresh interval (60 s).
        const registered = async () =>
          Object.keys(
            (await connection.operatorService.listSearchAttributes({ namespace: 'default' }))
              .customAttributes ?? {},
          );
        await connection.operatorService.removeSearchAttributes({
          namespace: 'default',
          searchAttributes: [OrderEventsDeliveryKey.name],
        });
        assert.ok(!(await registered()).includes(OrderEventsDeliveryKey.name), 'removed');
        await ensureSearchAttributes(connection);
        assert.ok((await registered()).includes(OrderEventsDeliveryKey.name), 'registered again');
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

  it('a killed server is gone once kill() resolves, and one started at once on its port and DB file serves', async () => {
    const dbFile = join(dir, 'killed.db');
    const port = await restartablePort();
    const first = await startDevServer({ headless: true, port, dbFile });
    const pid = first.pid!;
    await first.kill();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `server ${pid} is gone`);
    const second = await startDevServer({ headless: true, port, dbFile });
    try {
      const connection = await Connection.connect({ address: second.address });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
    } finally {
      await second.stop();
    }
  });

  it("a port it picked for itself and lost to another process is a race to try again; the caller's is not", () => {
    const msg = (p: number) =>
      `Failed to start ringpop listener: listen tcp 127.0.0.1:${p}: bind: address already in use`;
    assert.equal(takenOwnPort(msg(43433), ['43433', '43434']), '43433');
    assert.equal(
      takenOwnPort(msg(7233), ['43433']),
      undefined,
      'the frontend port the caller gave',
    );
    assert.equal(takenOwnPort('Unable to start server. Error: no such file', ['43433']), undefined);
  });

  it('a server that cannot start says why, in the words of its own error', async () => {
    // Another program holds the port (the readiness wait may connect to it meanwhile).
    const sockets: Socket[] = [];
    const held = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const port = (held.address() as AddressInfo).port;
    try {
      await assert.rejects(startDevServer({ headless: true, port }), (err: Error) => {
        assert.equal(
          err.message,
          `the Temporal server exited with 1 before it was ready: Failed to start gRPC listener: listen tcp 127.0.0.1:${port}: bind: address already in use`,
        );
        return true;
      });
    } finally {
      held.close();
      for (const s of sockets) s.destroy();
    }
  });

  it('stops with the process that started it when that process ends without stopping it', async () => {
    // An unhandled rejection ends the process, as an uncaught error does.
    const script = [
      'void (async () => {',
      `  const { startDevServer } = require(${JSON.stringify(join(__dirname, '..', 'tools', 'temporal-server', 'dev-server.ts'))});`,
      '  const server = await startDevServer({ headless: true });',
      '  process.stdout.write(`${server.pid}\\n`);',
      "  throw new Error('the starting process fails');",
      '})();',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    const pid = Number(out.trim());
    assert.ok(pid > 0, `the server's pid was printed: ${out}${err}`);
    // Running and not a zombie (a container's first process may not reap orphans).
    const alive = () => {
      try {
        process.kill(pid, 0);
      } catch {
        return false;
      }
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return true;
      }
    };
    try {
      assert.notEqual(code, 0, 'the starting process failed');
      const until = Date.now() + 15_000;
      while (alive() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      assert.equal(alive(), false, `server ${pid} still runs after the process that started it`);
    } finally {
      if (alive()) process.kill(pid, 'SIGKILL');
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

/**
 * The server's reads of its cluster metadata so far (where search attributes are registered), once
 * the count stops moving: the server publishes its counters on a reporting interval (~1 s).
 */
async function clusterMetadataReads(url: string): Promise<number> {
  const scrape = async () =>
    metricSum(await (await fetch(url)).text(), 'persistence_requests', {
      operation: 'GetCurrentClusterMetadata',
    });
  let last = await scrape();
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 1_500));
    const now = await scrape();
    if (now === last) return now;
    last = now;
  }
  return last;
}
