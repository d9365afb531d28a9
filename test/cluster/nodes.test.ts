/**
 * Three Temporal server nodes on one PostgreSQL behind the balancer, mTLS end to end:
 *
 * - `npm run cluster -- --nodes 3` as a user runs it (a child process), pointed at a supplier of
 *   the test's own (`--supplier-url`): it prints each node's pid and ports (and writes them to
 *   cluster.json); a booking goes through; SIGKILL of a node by the printed pid; the next booking
 *   goes through too, with no duplicate at the supplier; Ctrl-C stops it.
 *
 * Needs the cluster binaries (built once by `npm run cluster`) and nginx with its stream module
 * (installed by the cluster as root); skipped with a message without them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { connectBookingClient } from '../../src/client';
import { loadConfig } from '../../src/config';
import { buildSimulator, DEMO_COMPANY } from '../../tools/simulator';
import { clusterSkip } from '../helpers/cluster-skip';
import { bookingInput } from '../helpers/booking-stack';

const ROOT = join(__dirname, '..', '..');
const skip = clusterSkip({ nodes: 3 });

/** 24,000–24,899: apart from the other cluster tests' blocks (fleet 28,000+, cluster 30,000+). */
const nodesBase = () => 24_000 + Math.floor(Math.random() * 900);

describe('three server nodes behind the balancer', { skip }, () => {
  it('npm run cluster -- --nodes 3 with an external supplier: a node killed by its printed pid, bookings go on', async () => {
    const step = (what: string) => console.log(`[nodes] ${new Date().toISOString()} ${what}`);
    const dir = mkdtempSync(join(tmpdir(), 'hbo-nodes-'));
    const simulator = buildSimulator({ companies: [DEMO_COMPANY], inspection: true });
    const { origin } = await simulator.listen(0, '127.0.0.1');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'tools/stack/cluster-main.ts',
        '--nodes',
        '3',
        '--workers',
        '1',
        '--base-port',
        String(nodesBase()),
        '--supplier-url',
        origin,
        '--data-dir',
        join(dir, 'cluster'),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`not ready in 240 s:\n${out}`)), 240_000);
        child.stdout.on('data', () => {
          if (out.includes('Cluster ready')) resolve();
        });
        void exited.then((code) => reject(new Error(`exited ${code}:\n${out}`)));
      }).finally(() => clearTimeout(timer));
      const pids = [...out.matchAll(/Server node (\d):\s+pid (\d+), frontend (\d+)/g)].map((m) => ({
        node: Number(m[1]),
        pid: Number(m[2]),
      }));
      assert.equal(pids.length, 3, out);
      assert.match(out, /Supplier:\s+\S+ \(external, --supplier-url\)/);
      assert.match(out, /Balancer:\s+localhost:\d+ → the nodes' frontends/);
      const facts = JSON.parse(readFileSync(join(dir, 'cluster', 'cluster.json'), 'utf8')) as {
        nodes: { number: number; pid: number }[];
        clientEnv: Record<string, string>;
      };
      assert.deepEqual(
        facts.nodes.map((n) => ({ node: n.number, pid: n.pid })),
        pids,
      );

      // A client configured only from the printed environment, as an order system would be.
      const stack = await connectBookingClient(loadConfig({ ...facts.clientEnv }));
      try {
        const first = bookingInput('instant');
        step('booking the first order');
        await stack.bookings.startBooking(first);
        assert.equal((await stack.bookings.result(first.orderId)).outcome, 'CONFIRMED');
        step(`SIGKILL node 2 (pid ${pids[1]!.pid})`);
        process.kill(pids[1]!.pid, 'SIGKILL');
        const second = bookingInput('instant');
        step('booking the second order');
        await stack.bookings.startBooking(second);
        step('started; waiting for its decision');
        assert.equal((await stack.bookings.result(second.orderId)).outcome, 'CONFIRMED');
        step('decided');
        const atSupplier = simulator
          .bookings()
          .map((b) => (b.customFields as Record<string, string> | null)?.custom_field_10);
        assert.deepEqual(
          [first.orderId, second.orderId].map((id) => atSupplier.filter((x) => x === id).length),
          [1, 1],
          'one supplier booking per order',
        );
      } finally {
        await stack.close();
        step('client closed');
      }
      step('Ctrl-C');
      child.kill('SIGINT');
      assert.equal(await exited, 0, out);
      step('stopped');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await simulator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
