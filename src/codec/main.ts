/**
 * `tsx src/codec/main.ts [--host 127.0.0.1]`: the codec server for the Temporal UI and CLI,
 * configured by the environment (`PAYLOAD_ENCRYPTION_KEYS[_FILE]`, `CODEC_SERVER_TOKEN`,
 * `CODEC_SERVER_PORT`, `CODEC_CORS_ORIGIN`, `NODE_ENV`; see src/config/). Prints its URL once
 * bound; SIGINT/SIGTERM close it.
 *
 * The host is a flag, not an environment variable, because src/config/ has none for it; it
 * defaults to loopback because the server decrypts for anyone holding the token, and the
 * development token is public. In a container pass `--host 0.0.0.0` with a real token.
 */
import { parseArgs } from 'node:util';
import { collectProblems, ConfigError, parseEnv } from '../config';
import { PortInUseError, whenPortInUse } from '../observability/ports';
import { buildCodecServer } from './codec-server';
import { DEV_CODEC_TOKEN, loadCodecServerConfig, loadEncryptionConfig } from '../config/codec';
import { EncryptionCodec } from './encryption-codec';

function loadAll() {
  const env = parseEnv();
  const problems: string[] = [];
  // Both loaded before failing, so one run names every bad variable.
  const encryption = collectProblems(() => loadEncryptionConfig(env), problems);
  const server = collectProblems(() => loadCodecServerConfig(env), problems);
  if (!encryption || !server) throw new ConfigError(problems);
  return { encryption, server };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { host: { type: 'string', default: '127.0.0.1' } },
  });
  const { encryption, server: config } = loadAll();
  const codec = new EncryptionCodec(encryption);
  const server = buildCodecServer({ codec, token: config.token, corsOrigin: config.corsOrigins });
  const url = await server
    .listen(config.port, values.host)
    .catch(whenPortInUse('CODEC_SERVER_PORT', config.port, 'codec server', values.host));

  const decrypts = codec.keyIds.map((k) => `"${k}"`).join(', ');
  const cors = config.corsOrigins.length > 0 ? config.corsOrigins.join(', ') : 'no origin';
  console.log(`Codec server listening on ${url}`);
  console.log(`  encrypts with key id "${codec.encryptionKeyId}", decrypts ${decrypts}`);
  console.log(`  CORS for ${cors}`);
  if (encryption.development) {
    console.log('  WARNING: development encryption key (public): never use it for real data');
  }
  if (config.developmentToken) {
    console.log(
      `  WARNING: development token: temporal ... --codec-auth 'Bearer ${DEV_CODEC_TOKEN}'`,
    );
  }

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      console.log(`${signal}: closing the codec server`);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  console.log('Codec server stopped.');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof PortInUseError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
