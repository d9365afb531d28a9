/**
 * `npm run temporal`: a local Temporal dev server with persistence and our search attributes, on
 * the release TEMPORAL_RELEASE names (the newest supported by default).
 *   --port 7233  --ui-port 8233  --db .data/temporal.db  --headless  --print-path
 * `--print-path` builds what is missing (the server, the UI server, and the Temporal CLI the
 * scripts use as a client) and prints where the server and the CLI are.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveTemporalCli } from './cli-binary';
import { ensureClusterBinaries } from './cluster-binaries';
import { startDevServer } from './dev-server';
import { selectedRelease } from './selected-release';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '7233' },
      'ui-port': { type: 'string' },
      db: { type: 'string', default: '.data/temporal.db' },
      headless: { type: 'boolean', default: false },
      'print-path': { type: 'boolean', default: false },
      'ui-codec-endpoint': { type: 'string' },
    },
    strict: true,
  });
  const log = (line: string) => console.error(line);
  if (values['print-path']) {
    const binaries = await ensureClusterBinaries({
      only: ['temporal-server', 'temporal-ui-server'],
      log,
    });
    const cli = await resolveTemporalCli({ log, allowDownload: false });
    console.log(binaries['temporal-server']);
    if (cli.kind === 'binary') console.log(cli.path);
    return;
  }
  const port = Number(values.port);
  const uiPort = values['ui-port'] !== undefined ? Number(values['ui-port']) : port + 1000;
  for (const [name, v] of [
    ['--port', port],
    ['--ui-port', uiPort],
  ] as const) {
    if (!Number.isInteger(v) || v <= 0 || v > 65535) throw new Error(`${name}: not a port number`);
  }
  const dbFile = resolve(values.db);
  const started = Date.now();
  const server = await startDevServer({
    port,
    uiPort,
    headless: values.headless,
    dbFile,
    ...(values['ui-codec-endpoint'] ? { uiCodecEndpoint: values['ui-codec-endpoint'] } : {}),
    stdio: 'inherit',
    log,
  });
  console.log(
    `Temporal dev server ${server.serverVersion} (release ${selectedRelease()}) ready in ${Date.now() - started} ms`,
  );
  console.log(`  gRPC:   ${server.address}`);
  if (server.uiUrl) console.log(`  Web UI: ${server.uiUrl}`);
  console.log(`  DB:     ${dbFile}`);
  console.log('Press Ctrl-C to stop.');
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping the Temporal dev server ...');
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
