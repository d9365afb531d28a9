/**
 * `npm start`: the local stack, long-running. A Temporal dev server at TEMPORAL_ADDRESS (reused
 * when one already answers there; else started with `.data/temporal.db` and its UI), the
 * simulator at HOTEL_API_BASE_URL when that is a local address (a real supplier's URL is used as
 * is), and a booking worker on TEMPORAL_TASK_QUEUE. The defaults line up with the command-line
 * tool's, so `npm run starter -- <command>` in another terminal reaches this stack unconfigured.
 * Ctrl-C stops everything it started.
 */
import { resolve } from 'node:path';
import { parseHostPort, probeTcp } from '../../src/doctor/tcp-probe';
import { loadCodecServerConfig } from '../../src/config/codec';
import { ConfigError, loadConfig, parseEnv } from '../../src/config';
import { PortInUseError } from '../../src/observability/ports';
import { startLocalStack, type SupplierChoice, type TemporalChoice } from './local-stack';
import { runUntilStopped } from './run-until-stopped';

const DB_FILE = resolve('.data/temporal.db');
const LOCAL_HOST = /^(127\.\d+\.\d+\.\d+|localhost|\[?::1\]?|0\.0\.0\.0)$/;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  const config = loadConfig();
  const address = config.temporal.address;

  let temporal: TemporalChoice;
  if ((await probeTcp(address, 1_000)).ok) {
    log(`A Temporal server already answers at ${address}: using it.`);
    temporal = { kind: 'existing', address };
  } else {
    const target = parseHostPort(address);
    if (!target || !LOCAL_HOST.test(target.host)) {
      log(
        `Cannot reach Temporal at ${address}, and it is not a local address this command could ` +
          'start a server on. Start that server, or unset TEMPORAL_ADDRESS for a local one.',
      );
      return 3;
    }
    temporal = { kind: 'start', ip: target.host, port: target.port, dbFile: DB_FILE };
  }

  const base = new URL(config.hotelApi.baseUrl);
  const supplier: SupplierChoice = LOCAL_HOST.test(base.hostname)
    ? {
        kind: 'simulator',
        host: base.hostname.replace(/^\[|\]$/g, ''),
        port: Number(base.port || 80),
        company: { key: config.hotelApi.key, secret: config.hotelApi.secret },
      }
    : { kind: 'external', baseUrl: config.hotelApi.baseUrl };

  const stack = await startLocalStack({
    temporal,
    supplier,
    config,
    codecServer: loadCodecServerConfig(parseEnv()),
    log,
    sdkLog: { to: 'stderr', level: 'WARN' },
  });

  const lines = [
    `Local stack ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    `  Temporal gRPC:  ${stack.temporalAddress}${stack.startedTemporal ? ` (started here; DB ${DB_FILE})` : ' (already running)'}`,
    `  Temporal UI:    ${stack.uiUrl ?? '(that of the running server)'}`,
    `  Supplier:       ${stack.supplierUrl}/api/v1${stack.simulator ? ' (simulator, in-process; inspection at /__sim/bookings)' : ''}`,
    ...(stack.codecUrl
      ? [`  Codec server:   ${stack.codecUrl} (the UI decrypts payloads through it)`]
      : []),
    `  Worker:         task queue '${stack.taskQueue}', namespace '${stack.namespace}'`,
    '',
    'In another terminal:',
    '  npm run starter -- search --property 1001 --checkin <YYYY-MM-DD> --checkout <YYYY-MM-DD>',
    '  npm run starter -- book --order <id> --option <option id> --guest "Ada Lovelace" --phone-prefix +39 --phone 3331234567 --wait',
    '  npm run starter -- list',
    '',
    'Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  return runUntilStopped(stack, {
    what: 'what this stack started',
    log,
    ended: stack.workerStopped,
    endedWhy: 'The worker stopped',
    failedWhy: 'The worker failed',
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof PortInUseError) {
      log(err.message);
      process.exit(2);
    }
    const message = err instanceof Error ? err.message : String(err);
    log(message);
    if (/EADDRINUSE/.test(message)) {
      log(
        'A port the stack needs is taken: is another stack, simulator (`npm run simulator`) or ' +
          'Temporal server already running? Stop it, or point HOTEL_API_BASE_URL / TEMPORAL_ADDRESS elsewhere.',
      );
    }
    process.exit(1);
  },
);
