/**
 * What the hotel API client costs over a bare undici call: signed, validated, schema-checked
 * `priceCheck` calls through `HotelApiClient` against bare `pool.request` + `body.json()`, both
 * against the same loopback server in the same run.
 *
 * The server runs in a child process so that `process.cpuUsage()` measures the client side only.
 * `BENCH_PARTS=client npm run bench -- --quick` runs it alone.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { HotelApiClient } from '../../src/hotel-api';

export interface ClientBenchOptions {
  /**
   * How long each variant is measured in total, in ms, in alternating slices (after a warm-up
   * of a quarter of it, at most 1 s).
   */
  readonly durationMs: number;
  /** Calls in flight at once; also the number of pooled connections of each variant. */
  readonly concurrency: number;
}

export interface ClientBenchResult {
  /** Signed, validated, parsed `HotelApiClient.priceCheck` calls per second. */
  readonly signedCallsPerSecond: number;
  /** Bare `pool.request` + `body.json()` calls per second. */
  readonly bareCallsPerSecond: number;
  /** Client-process CPU (user + system) per signed call, in µs. */
  readonly cpuMicrosPerCall: number;
  /** Client-process CPU per bare call, in µs. */
  readonly bareCpuMicrosPerCall: number;
}

/** A small JSON answer, the shape of a price check, served keep-alive. Plain JS for `node -e`. */
const SERVER_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ status: 'AVAILABLE', price: null, booking_id: 'tok-1' });
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
// Die with the parent, whatever happens to it.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', SERVER_SOURCE], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error('bench server has no stdout');
  const lines = createInterface({ input: stdout });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return { child, port };
}

/** Runs `call` from `concurrency` loops until `durationMs` has passed; returns calls and CPU µs. */
async function measure(
  call: () => Promise<unknown>,
  durationMs: number,
  concurrency: number,
): Promise<{ calls: number; seconds: number; cpuMicros: number }> {
  let calls = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await call();
        calls++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { calls, seconds, cpuMicros: cpu.user + cpu.system };
}

/** Slices per variant; each variant runs `durationMs` in total. */
const ROUNDS = 4;

/** Measures signed client calls against bare undici calls on loopback. */
export async function runClientBench(opts: ClientBenchOptions): Promise<ClientBenchResult> {
  const { durationMs, concurrency } = opts;
  const { child, port } = await startServer();
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = new HotelApiClient({
    baseUrl,
    key: 'bench-key',
    secret: 'bench-secret',
    clockCorrection: true,
    maxConnections: concurrency,
    timeouts: { bookingMs: 10_000, readMs: 10_000, searchMs: 10_000 },
  });
  const pool = new Pool(baseUrl, { connections: concurrency });
  const signedCall = () => client.priceCheck({ optionId: 'opt-1' });
  const bareCall = async () => {
    const { body } = await pool.request({
      path: '/api/v1/price-check?option_id=opt-1',
      method: 'GET',
    });
    return body.json();
  };
  try {
    // Warm up both (JIT, connections) before measuring either.
    const warmupMs = Math.min(1_000, Math.max(50, durationMs / 4));
    await measure(signedCall, warmupMs, concurrency);
    await measure(bareCall, warmupMs, concurrency);
    // Alternate short slices so that load from elsewhere on the machine hits both variants alike.
    const signed = { calls: 0, seconds: 0, cpuMicros: 0 };
    const bare = { calls: 0, seconds: 0, cpuMicros: 0 };
    const sliceMs = durationMs / ROUNDS;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [total, call] of [
        [signed, signedCall],
        [bare, bareCall],
      ] as const) {
        const m = await measure(call, sliceMs, concurrency);
        total.calls += m.calls;
        total.seconds += m.seconds;
        total.cpuMicros += m.cpuMicros;
      }
    }
    return {
      signedCallsPerSecond: signed.calls / signed.seconds,
      bareCallsPerSecond: bare.calls / bare.seconds,
      cpuMicrosPerCall: signed.cpuMicros / Math.max(1, signed.calls),
      bareCpuMicrosPerCall: bare.cpuMicros / Math.max(1, bare.calls),
    };
  } finally {
    await client.close();
    await pool.close();
    child.stdin?.end();
    child.kill();
  }
}
