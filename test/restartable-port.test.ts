/**
 * The crash drill restarts its dev server on the same port; that port must come from outside the
 * ephemeral range, where another process may take it while the server is down.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { portIsFree } from '../src/observability/ports';
import { RESTARTABLE_PORTS, restartablePort } from '../tools/temporal-server/dev-server';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

describe('restartablePort', () => {
  it("gives a free port below the ephemeral range, apart from the test workers' and clusters'", async () => {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    const { from, count } = RESTARTABLE_PORTS;
    assert.ok(from + count <= (low ?? 32_768), 'the range lies below the ephemeral one');
    for (let i = 0; i < 20; i++) {
      const port = await restartablePort();
      assert.ok(port > 26_000 && port < 28_000, `port ${port}`);
      (await listen(port)).close();
    }
  });

  it('skips a port that is taken', async () => {
    const taken = await listen(await restartablePort());
    const takenPort = (taken.address() as { port: number }).port;
    const draws = [(takenPort - RESTARTABLE_PORTS.from + 0.5) / RESTARTABLE_PORTS.count, 0.5];
    try {
      const port = await restartablePort('127.0.0.1', () => draws.shift() ?? Math.random());
      assert.notEqual(port, takenPort);
    } finally {
      taken.close();
    }
  });
});

describe('portIsFree', () => {
  it('says whether a port can be listened on, and leaves it free', async () => {
    const held = await listen(await restartablePort());
    const port = (held.address() as { port: number }).port;
    assert.equal(await portIsFree(port, '127.0.0.1'), false, 'held');
    await new Promise((r) => held.close(r));
    assert.equal(await portIsFree(port, '127.0.0.1'), true, 'released');
    assert.equal(await portIsFree(port, '127.0.0.1'), true, 'still free after the check');
  });
});
