/**
 * docs/adopt.md's self-hosted sequence, run as it stands: the block between its
 * `<!-- adopt:self-hosted -->` marks, read from the page, in bash, against a fresh namespace of a
 * cluster with mTLS (PostgreSQL, the Temporal server; tools/temporal-server/cluster.ts) and the
 * simulator as the supplier, with only the variables the page asks the reader to set. It must end
 * with the first booking CONFIRMED, and prints how long the sequence took. Needs the cluster
 * binaries (skipped with a message without them).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildSimulator } from '../tools/simulator/server';
import { scenarioOptionId } from '../tools/simulator/scenarios';
import { startClusterInfrastructure } from '../tools/temporal-server/cluster';
import { freePort } from '../tools/temporal-server/dev-server';
import { clusterSkip } from './helpers/cluster-skip';

const ROOT = join(__dirname, '..');

/** The page's block between the marks, without its fence. */
export function adoptBlock(page: string, route: string): string {
  const start = page.indexOf(`<!-- adopt:${route} -->`);
  const end = page.indexOf(`<!-- /adopt:${route} -->`);
  assert.ok(start >= 0 && end > start, `docs/adopt.md has no ${route} block`);
  const fenced = /```sh\n([\s\S]*?)```/.exec(page.slice(start, end));
  assert.ok(fenced, `the ${route} block is not a sh code block`);
  return fenced[1]!;
}

/** Runs `script` in bash in its own process group; resolves with its output, then stops the group. */
function runBlock(
  script: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const stopGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(stopGroup, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // The block leaves its worker and codec server running in the background: stop them.
      stopGroup();
      resolve({ code, out });
    });
  });
}

const skip = clusterSkip();

describe('docs/adopt.md, run as written', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-adopt-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('your own Temporal over mTLS: a fresh namespace to a CONFIRMED booking', async () => {
    const sim = buildSimulator({
      companies: [{ key: 'adopt-key', secret: 'adopt-secret-0123456789', active: true }],
      inspection: true,
    });
    const { url } = await sim.listen(0, '127.0.0.1');
    let infra: Awaited<ReturnType<typeof startClusterInfrastructure>> | undefined;
    try {
      // 26,000–26,899: apart from the other cluster tests' ranges (test/cluster/).
      infra = await startClusterInfrastructure({
        dataDir: join(dir, 'cluster'),
        basePort: 26_000 + ((await freePort()) % 900),
        log: () => undefined,
      });
      const namespace = `adopt-${Date.now().toString(36)}`;
      const order = `adopt-${process.pid}-${Date.now().toString(36)}`;
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        // What the page asks the reader to set.
        ...infra.clientEnv,
        TEMPORAL_NAMESPACE: namespace,
        HOTEL_API_BASE_URL: url.replace(/\/api\/v1\/?$/, ''),
        HOTEL_API_KEY: 'adopt-key',
        HOTEL_API_SECRET: 'adopt-secret-0123456789',
        SECRETS: join(dir, 'secrets'),
        ORDER: order,
        OPTION: scenarioOptionId('instant'),
        // Ports of this test's own, beside the suite's other processes.
        METRICS_PORT: String(await freePort()),
        HEALTH_PORT: String(await freePort()),
        CODEC_SERVER_PORT: String(await freePort()),
      };
      const script = adoptBlock(
        readFileSync(join(ROOT, 'docs', 'adopt.md'), 'utf8'),
        'self-hosted',
      );
      const started = Date.now();
      const { code, out } = await runBlock(script, env, 240_000);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`[adopt] the self-hosted sequence took ${seconds} s (exit ${code})`);
      if (process.env.ADOPT_SHOW === '1') console.log(out);
      assert.equal(code, 0, out.slice(-4000));
      assert.match(out, /│ Outcome +│ CONFIRMED/);
      const [booking, ...more] = sim.bookings({ customFields: { custom_field_10: order } });
      assert.equal(booking?.status, 'CONFIRMED');
      assert.equal(more.length, 0);
      // The guest's data reached Temporal encrypted with the key the sequence made.
      assert.ok(!out.includes('3331234567') || !/payload/i.test(out));
    } finally {
      await infra?.stop();
      await sim.close();
    }
  });
});
