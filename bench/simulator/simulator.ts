/**
 * Simulator throughput: signed `GET /properties/availability` requests per second over
 * loopback, beside a bare `node:http` server answering a small JSON in the same run (the
 * ceiling of this machine and load generator).
 *
 * The servers run in a child process (this file with `--serve`), so the load generator and the
 * server under test do not share one event loop. Signing uses `src/hotel-api/signing.ts`
 * directly, with a fresh signature per request as a real client would.
 *
 * `BENCH_PARTS=simulator npm run bench -- --quick` runs it alone.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { sign } from '../../src/hotel-api/signing';
import { buildSimulator, DEMO_COMPANY } from '../../tools/simulator';

const AVAILABILITY_PATH =
  '/api/v1/properties/availability?checkin=2026-06-01&checkout=2026-06-03&property_id=1001&occupancy=2';
const BARE_BODY = JSON.stringify({ ok: true, properties: [], warnings: [] });

interface Served {
  readonly simOrigin: string;
  readonly bareOrigin: string;
}

interface LoadResult {
  readonly requests: number;
  /** Size of one response body. */
  readonly bodyBytes: number;
  readonly errors: number;
  readonly elapsedMs: number;
  readonly requestsPerSecond: number;
}

async function serve(): Promise<void> {
  const sim = buildSimulator({ companies: [DEMO_COMPANY] });
  const { origin } = await sim.listen(0, '127.0.0.1');
  const bare = createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(BARE_BODY),
    });
    res.end(BARE_BODY);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const { port } = bare.address() as AddressInfo;
  const served: Served = { simOrigin: origin, bareOrigin: `http://127.0.0.1:${port}` };
  process.send?.(served);
  process.on('disconnect', () => process.exit(0));
}

async function load(
  origin: string,
  path: string,
  signed: boolean,
  durationMs: number,
  concurrency: number,
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  let requests = 0;
  let errors = 0;
  let bodyBytes = 0;
  const oneRequest = async () => {
    const headers = signed ? { authorization: sign(DEMO_COMPANY, Date.now()) } : undefined;
    const res = await pool.request({ method: 'GET', path, ...(headers ? { headers } : {}) });
    bodyBytes = (await res.body.arrayBuffer()).byteLength;
    return res.statusCode;
  };
  // Warm up connections and the JIT before measuring.
  const warmUntil = performance.now() + Math.min(500, durationMs / 4);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < warmUntil) await oneRequest();
    }),
  );
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const status = await oneRequest();
        requests += 1;
        if (status !== 200) errors += 1;
      }
    }),
  );
  const elapsedMs = performance.now() - start;
  await pool.close();
  return {
    requests,
    errors,
    bodyBytes,
    elapsedMs,
    requestsPerSecond: (requests / elapsedMs) * 1000,
  };
}

/**
 * Measures the simulator (latency 0) and a bare server, one after the other, in the same run.
 * Throws when any request fails (a benchmark of errors measures nothing).
 */
export async function runSimulatorBench(opts: {
  durationMs: number;
  concurrency: number;
}): Promise<{
  requestsPerSecond: number;
  bareRequestsPerSecond: number;
  /** Response body sizes, bytes (the availability answer is far larger than the bare one). */
  bodyBytes: { simulator: number; bare: number };
}> {
  const child = fork(__filename, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const served = await new Promise<Served>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Served));
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    const bare = await load(served.bareOrigin, '/', false, opts.durationMs, opts.concurrency);
    const sim = await load(
      served.simOrigin,
      AVAILABILITY_PATH,
      true,
      opts.durationMs,
      opts.concurrency,
    );
    if (bare.errors > 0 || sim.errors > 0) {
      throw new Error(`bench requests failed: bare ${bare.errors}, simulator ${sim.errors}`);
    }
    return {
      requestsPerSecond: sim.requestsPerSecond,
      bareRequestsPerSecond: bare.requestsPerSecond,
      bodyBytes: { simulator: sim.bodyBytes, bare: bare.bodyBytes },
    };
  } finally {
    child.disconnect();
    child.kill();
  }
}

if (require.main === module && process.argv.includes('--serve')) {
  serve().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
