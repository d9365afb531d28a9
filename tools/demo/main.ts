/**
 * `npm run demo`: the whole system on one machine, in one command. Finds (or builds once) the
 * Temporal CLI, starts its dev server with a persistent DB and the web UI, the simulator and a
 * worker in-process, runs one booking per behaviour worth seeing — all at once, with a live
 * display — and prints a summary with the Temporal UI link of every workflow. Exit 0 when every
 * booking reached its expected outcome, 1 otherwise.
 *
 *   --keep                    leave the stack running to explore the UI (Ctrl-C stops it)
 *   --temporal-address <a>    use a running Temporal server instead of starting one (tests)
 *   --db <file>               the dev server's SQLite file (default .data/demo-temporal.db)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connectBookingClient, type ConnectedClient } from '../../src/client';
import { temporalSecurityEnvOf } from '../../src/config/temporal-security';
import { formatDuration, table } from '../../src/cli/render';
import { loadCodecServerConfig } from '../../src/config/codec';
import { ConfigError, loadConfig, parseEnv } from '../../src/config';
import { HotelApiClient } from '../../src/hotel-api';
import { PortInUseError } from '../../src/observability/ports';
import { scenarioOptionId } from '../simulator/scenarios';
import { startLocalStack, workflowUrl, type LocalStack } from '../stack/local-stack';
import { DEMO_ACCOUNT, DEMO_CASES, type CaseResult, type DemoContext } from './demo-cases';
import { ProgressDisplay } from './progress-display';

/** The demo gives up on bookings still running after this long. */
const DEMO_TIMEOUT_MS = 120_000;

const USAGE = `usage: npm run demo -- [--keep] [--temporal-address <host:port>] [--db <file>]`;

interface Row {
  readonly orderId: string;
  readonly label: string;
  readonly expected: string;
  readonly result: CaseResult | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
  readonly ok: boolean;
}

const say = (line = '') => void process.stdout.write(`${line}\n`);
const log = (line: string) => void process.stderr.write(`${line}\n`);

/** `YYYY-MM-DD`, `days` from today (UTC). */
function dayFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** The price availability lists for the scenario rooms: what an order system expects to pay. */
async function listedPrice(stack: LocalStack, checkin: string, checkout: string) {
  const api = new HotelApiClient(stack.config.hotelApi);
  try {
    // Untagged: the id availability lists (the booked options carry a fresh tag each).
    const optionId = scenarioOptionId('price-up', { param: 10, checkin, checkout, tag: null });
    const availability = await api.availability({
      checkin,
      checkout,
      propertyIds: [1001],
      occupancy: ['2'],
    });
    const room = availability.properties.flatMap((p) => p.rooms).find((r) => r.id === optionId);
    if (!room?.price.currency) {
      throw new Error(`availability did not list ${optionId} with a priced room`);
    }
    return { net: room.price.net, currency: room.price.currency };
  } finally {
    await api.close();
  }
}

async function runCases(
  stack: LocalStack,
  client: ConnectedClient,
  runId: string,
  orderIdField: string,
): Promise<Row[]> {
  const checkin = dayFromToday(30);
  const checkout = dayFromToday(32);
  const display = new ProgressDisplay({
    write: (t) => void process.stdout.write(t),
    live: process.stdout.isTTY === true,
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
  });
  const ctx: DemoContext = {
    bookings: client.bookings,
    sim: stack.simulator!,
    orderIdField,
    checkin,
    checkout,
    listedPrice: await listedPrice(stack, checkin, checkout),
    onPhase: (orderId, phase) => display.phase(orderId, phase),
    onNote: (orderId, note) => display.note(orderId, note),
  };
  say(
    `Booking ${DEMO_CASES.length} orders at once (${checkin} → ${checkout}, listed price ${ctx.listedPrice.net} ${ctx.listedPrice.currency}):`,
  );
  const cases = DEMO_CASES.map((c) => ({ ...c, orderId: `demo-${runId}-${c.key}` }));
  for (const c of cases) display.add({ orderId: c.orderId, scenario: c.label });
  display.start();
  const rows = await Promise.all(
    cases.map(async (c): Promise<Row> => {
      const t0 = Date.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        const result = await Promise.race([
          c.run(ctx, c.orderId),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`still running after ${DEMO_TIMEOUT_MS / 1000} s`)),
              DEMO_TIMEOUT_MS,
            );
          }),
        ]);
        const ok = result.outcome === c.expected;
        display.done(c.orderId, ok);
        return { ...c, result, error: undefined, durationMs: Date.now() - t0, ok };
      } catch (err) {
        display.done(c.orderId, false);
        const error = err instanceof Error ? err.message : String(err);
        return { ...c, result: undefined, error, durationMs: Date.now() - t0, ok: false };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  display.stop();
  return rows;
}

function printSummary(rows: readonly Row[], stack: LocalStack): void {
  say();
  say(
    table(
      ['Order', 'Scenario', 'Expected', 'Outcome', 'Supplier booking', 'Duration', ''],
      rows.map((r) => [
        r.orderId,
        r.label,
        r.expected,
        r.result?.outcome ?? `ERROR: ${r.error}`,
        r.result?.bookingId,
        formatDuration(r.durationMs),
        r.ok ? '✓' : '✗',
      ]),
    ),
  );
  say();
  if (stack.uiUrl) {
    say('In the Temporal UI:');
    for (const r of rows) {
      for (const id of r.result?.workflowIds ?? [`booking-${r.orderId}`]) {
        say(`  ${workflowUrl(stack.uiUrl, stack.namespace, id)}`);
      }
    }
  } else {
    say(`Workflows (Temporal at ${stack.temporalAddress}; no UI started by the demo):`);
    for (const r of rows)
      say(`  ${(r.result?.workflowIds ?? [`booking-${r.orderId}`]).join(', ')}`);
  }
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        keep: { type: 'boolean', default: false },
        'temporal-address': { type: 'string' },
        db: { type: 'string', default: '.data/demo-temporal.db' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    log(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    say(USAGE);
    return 0;
  }
  const t0 = Date.now();
  // Order ids and the task queue are fresh per run: the DB persists, and an order id is booked
  // once for ever; a queue of its own keeps leftovers of an interrupted run off this worker.
  const runId = Date.now().toString(36);
  const taskQueue = `demo-${runId}`;
  const address = values['temporal-address'];
  const dbFile = resolve(values.db);
  const workerLog = resolve('.data/demo-worker.log');
  // The log of this run only: a fresh file each time, so what is in it belongs to this summary.
  mkdirSync(dirname(workerLog), { recursive: true });
  writeFileSync(workerLog, '');
  if (!address) log('Starting the Temporal dev server (finding the Temporal CLI first) ...');

  const stack = await startLocalStack({
    temporal: address ? { kind: 'existing', address } : { kind: 'start', dbFile },
    // Two supplier accounts: the default one and the demo's second (DEMO_ACCOUNT).
    supplier: { kind: 'simulator', accounts: [DEMO_ACCOUNT] },
    // The demo's own settings, not the shell's: it runs against its own simulator and server
    // (the defaults give the simulator's demo company and the development encryption key).
    // An existing server is reached with the shell's TLS settings (TEMPORAL_TLS_*, API key).
    config: loadConfig({
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...(address ? temporalSecurityEnvOf(process.env) : {}),
    }),
    // Port 0: a demo must not collide with an `npm start` already serving the default port.
    codecServer: { ...loadCodecServerConfig(parseEnv({})), port: 0 },
    log,
    sdkLog: { to: { file: workerLog }, level: 'WARN' },
  });
  const { config } = stack;
  const client = await connectBookingClient(config);
  let rows: Row[];
  try {
    say(
      `Temporal ${stack.temporalAddress}${stack.uiUrl ? `, UI ${stack.uiUrl}` : ''}; simulator ${stack.supplierUrl}; worker on '${taskQueue}' (SDK log: ${workerLog})`,
    );
    say(`Ready in ${formatDuration(Date.now() - t0)}.`);
    rows = await runCases(stack, client, runId, config.orderIdField);
    printSummary(rows, stack);
  } catch (err) {
    await client.close();
    await stack.stop();
    throw err;
  }
  const failed = rows.filter((r) => !r.ok);
  say();
  say(
    failed.length === 0
      ? `All ${rows.length} bookings reached their expected outcome in ${formatDuration(Date.now() - t0)}.`
      : `${failed.length} of ${rows.length} bookings did not reach their expected outcome: ${failed.map((r) => r.orderId).join(', ')}`,
  );
  const code = failed.length === 0 ? 0 : 1;

  if (values.keep) {
    say();
    say('The stack keeps running (--keep). The command-line tool reaches it with:');
    say(
      `  export TEMPORAL_ADDRESS=${stack.temporalAddress} TEMPORAL_TASK_QUEUE=${taskQueue} HOTEL_API_BASE_URL=${stack.supplierUrl}`,
    );
    say('  npm run starter -- list');
    say('Press Ctrl-C to stop.');
    await new Promise<void>((done) => {
      process.once('SIGINT', () => done());
      process.once('SIGTERM', () => done());
    });
    log('Stopping ...');
  }
  await client.close();
  await stack.stop();
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    // A taken port or bad configuration is the caller's to change (exit 2, like the worker).
    process.exit(err instanceof PortInUseError || err instanceof ConfigError ? 2 : 1);
  },
);
