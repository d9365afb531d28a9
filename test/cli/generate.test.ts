/**
 * `generate payload-key` and `generate codec-token`: what they print is what the configuration
 * reads — a production worker takes the key, a production codec server the token — and each run
 * makes a new one. Run as a user runs it (the tool's process, no Temporal needed).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseEnv } from '../../src/config';
import { loadCodecServerConfig } from '../../src/config/codec';

import { cli, explain } from './cli-process';

const tool = cli({ ...process.env, NODE_ENV: 'production' });
const production = (env: Record<string, string>) =>
  loadConfig({
    NODE_ENV: 'production',
    HOTEL_API_BASE_URL: 'https://supplier.example.com',
    HOTEL_API_KEY: 'k',
    HOTEL_API_SECRET: 's',
    ...env,
  });

describe('generate: the secrets a deployment makes', () => {
  it('a payload key that a production configuration reads, new each time, under the id asked for', async () => {
    const [a, b, named] = await Promise.all([
      tool('generate', 'payload-key'),
      tool('generate', 'payload-key'),
      tool('--json', 'generate', 'payload-key', '--id', 'prod-2027'),
    ]);
    for (const r of [a, b, named]) assert.equal(r.code, 0, explain(r));
    assert.match(a.stdout.trim(), /^key-\d{8}:[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(a.stdout, b.stdout);
    const key = (JSON.parse(named.stdout) as { PAYLOAD_ENCRYPTION_KEYS: string })
      .PAYLOAD_ENCRYPTION_KEYS;
    assert.match(key, /^prod-2027:/);
    const config = production({ PAYLOAD_ENCRYPTION_KEYS: `${key},${a.stdout.trim()}` });
    assert.deepEqual(
      config.encryption.keys.map((k) => k.id),
      ['prod-2027', a.stdout.trim().split(':')[0]],
    );
  });

  it('a codec token that a production codec server takes; a bad key id is refused in one line', async () => {
    const [token, bad] = await Promise.all([
      tool('generate', 'codec-token'),
      tool('generate', 'payload-key', '--id', 'no spaces'),
    ]);
    assert.equal(token.code, 0, explain(token));
    const value = token.stdout.trim();
    assert.match(value, /^[A-Za-z0-9_-]{43}$/);
    const codec = (token: string) =>
      loadCodecServerConfig(parseEnv({ NODE_ENV: 'production', CODEC_SERVER_TOKEN: token }));
    assert.equal(codec(value).token, value);
    assert.throws(() => codec('short'), ConfigError, 'the check can fail');
    assert.equal(bad.code, 2, explain(bad));
    assert.match(bad.stderr, /--id: 1 to 64/);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
  });
});
