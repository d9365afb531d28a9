import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { sign } from '../../src/hotel-api/signing';

const MAIN = join(__dirname, '..', '..', 'tools', 'simulator', 'main.ts');

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
}

/** Starts the CLI and waits for its "listening" line. */
function startCli(args: readonly string[]): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: join(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line within 15 s: ${out}`));
    }, 15_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Simulator listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1], output: () => out });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${out}`));
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function status(url: string, creds: { key: string; secret: string }): Promise<number> {
  const res = await request(`${url}/static_content_reference_list?language=en`, {
    headers: { authorization: sign(creds, Date.now()) },
  });
  await res.body.dump();
  return res.statusCode;
}

describe('Command line', () => {
  it('listens with the given companies and inspection, and closes cleanly on SIGTERM', async () => {
    const { child, url } = await startCli([
      '--port',
      '0',
      '--company',
      'cli-key:cli:secret:with:colons:active',
      '--company',
      'sleepy:zzz:inactive',
      '--seed',
      '7',
      '--latency-ms',
      '1-3',
      '--inspection',
    ]);
    const exited = exitOf(child);
    try {
      assert.equal(await status(url, { key: 'cli-key', secret: 'cli:secret:with:colons' }), 200);
      assert.equal(await status(url, { key: 'sleepy', secret: 'zzz' }), 403);
      assert.equal(await status(url, { key: 'demo-key', secret: 'demo-secret-change-me' }), 401);
      const inspect = await request(url.replace('/api/v1', '/__sim/requests'));
      assert.equal(inspect.statusCode, 200);
      assert.equal(((await inspect.body.json()) as { total: number }).total, 3);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  it('accepts the demo company by default and closes on SIGINT', async () => {
    const { child, url } = await startCli(['--port', '0']);
    const exited = exitOf(child);
    try {
      assert.equal(await status(url, { key: 'demo-key', secret: 'demo-secret-change-me' }), 200);
      const inspect = await request(url.replace('/api/v1', '/__sim/requests'));
      assert.equal(inspect.statusCode, 404, 'inspection is off unless asked for');
      await inspect.body.dump();
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
  });

  it('sets one company’s faults with --company-fault', async () => {
    const { child, url } = await startCli([
      '--port',
      '0',
      '--company',
      'a:sa:active',
      '--company',
      'b:sb:active',
      '--company-fault',
      'a:error-rate=1',
      '--company-fault',
      'a:latency-ms=1-2',
      '--company-fault',
      'b:rate-limit=50',
      '--inspection',
    ]);
    const exited = exitOf(child);
    try {
      assert.equal(await status(url, { key: 'a', secret: 'sa' }), 503);
      assert.equal(await status(url, { key: 'b', secret: 'sb' }), 200);
      const inspect = await request(url.replace('/api/v1', '/__sim/company-faults'));
      assert.deepEqual(await inspect.body.json(), {
        companyFaults: {
          a: { errorRate: { '*': 1 }, latency: { minMs: 1, maxMs: 2 } },
          b: { rateLimit: { perSecond: 50 } },
        },
        hanging: {},
      });
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  it('refuses a --company-fault of no company or no known fault with exit code 2', async () => {
    for (const [spec, message] of [
      ['demo-key:sleep', /--company-fault must be <key>:hang/],
      ['demo-key:error-rate=2', /--company-fault must be/],
      ['hang', /--company-fault must be/],
      ['ghost:hang', /--company-fault names no company: ghost/],
    ] as const) {
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--company-fault', spec], {
        cwd: join(__dirname, '..', '..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      assert.equal(await exitOf(child), 2, spec);
      assert.match(err, message);
    }
  });

  it('refuses a malformed --company with exit code 2 and the usage', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--company', 'no-state'], {
      cwd: join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    assert.equal(await exitOf(child), 2);
    assert.match(err, /--company must be <key>:<secret>:<active\|inactive>/);
    assert.match(err, /usage:/);
  });
});
