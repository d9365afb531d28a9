import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { after, describe, it } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { ConfigError, parseEnv } from '../../src/config';
import {
  DEV_CODEC_TOKEN,
  DEV_KEY_ID,
  ENCODING_ENCRYPTED,
  EncryptionCodec,
  METADATA_KEY_ID,
  PayloadCodecError,
  loadCodecServerConfig,
  loadEncryptionConfig,
  parseEncryptionKeys,
  type EncryptionConfig,
} from '../../src/codec';

const SENTINEL = 'SENTINEL-guest-Ada-Lovelace-4242';

function keySpec(id: string, bytes = randomBytes(32)): string {
  return `${id}:${bytes.toString('base64')}`;
}

function keys(spec: string): EncryptionConfig {
  return loadEncryptionConfig(parseEnv({ PAYLOAD_ENCRYPTION_KEYS: spec }));
}

function payloadOf(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value);
}

function valueOf(payload: Payload | undefined): unknown {
  assert.ok(payload);
  return defaultPayloadConverter.fromPayload(payload);
}

async function rejection(p: Promise<unknown>): Promise<PayloadCodecError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof PayloadCodecError, `expected a PayloadCodecError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected decoding to fail');
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a ConfigError');
}

describe('EncryptionCodec', () => {
  const A = keySpec('key-a');
  const B = keySpec('key-b');

  it('round-trips payloads of every kind through encode and decode', async () => {
    const codec = new EncryptionCodec(keys(A));
    const values = [{ guest: SENTINEL, rooms: [1, 2] }, 'text', 42, null, undefined, ''];
    const decoded = await codec.decode(await codec.encode(values.map(payloadOf)));
    assert.deepEqual(decoded.map(valueOf), values);
    assert.deepEqual(await codec.encode([]), []);
  });

  it('marks an encrypted payload binary/encrypted with the key id, and hides the plaintext', async () => {
    const codec = new EncryptionCodec(keys(A));
    const [encrypted] = await codec.encode([payloadOf({ guest: SENTINEL })]);
    assert.ok(encrypted?.metadata && encrypted.data);
    assert.deepEqual(Object.keys(encrypted.metadata).sort(), ['encoding', METADATA_KEY_ID]);
    assert.equal(Buffer.from(encrypted.metadata.encoding!).toString(), ENCODING_ENCRYPTED);
    assert.equal(Buffer.from(encrypted.metadata[METADATA_KEY_ID]!).toString(), 'key-a');
    const everything = Buffer.concat([
      Buffer.from(encrypted.data),
      ...Object.values(encrypted.metadata).map((v) => Buffer.from(v)),
    ]);
    assert.equal(
      everything.includes(SENTINEL),
      false,
      'the sentinel is not in the encrypted bytes',
    );
    assert.equal(everything.includes('json/plain'), false, 'the inner encoding is encrypted too');
  });

  it('uses a fresh IV for every payload, so equal inputs encrypt differently', async () => {
    const codec = new EncryptionCodec(keys(A));
    const [one, two] = await codec.encode([payloadOf(SENTINEL), payloadOf(SENTINEL)]);
    assert.ok(one?.data && two?.data);
    assert.notDeepEqual(Buffer.from(one.data), Buffer.from(two.data));
    assert.notDeepEqual(
      Buffer.from(one.data).subarray(0, 12),
      Buffer.from(two.data).subarray(0, 12),
    );
  });

  it('refuses a payload whose ciphertext, IV or tag was altered', async () => {
    const codec = new EncryptionCodec(keys(A));
    const [encrypted] = await codec.encode([payloadOf({ guest: SENTINEL })]);
    assert.ok(encrypted?.data);
    for (const index of [0, 12, encrypted.data.length - 1]) {
      const data = Buffer.from(encrypted.data);
      data[index] = (data[index] ?? 0) ^ 0x01;
      const err = await rejection(codec.decode([{ ...encrypted, data }]));
      assert.equal(err.code, 'CODEC_DECRYPT_FAILED');
      assert.equal(err.keyId, 'key-a');
      assert.match(err.message, /key id "key-a"/);
    }
    const truncated = await rejection(
      codec.decode([{ ...encrypted, data: encrypted.data.subarray(0, 20) }]),
    );
    assert.equal(truncated.code, 'CODEC_MALFORMED_PAYLOAD');
  });

  it('still decodes payloads encrypted under key A after rotation to keys B,A, and encrypts with B', async () => {
    const before = new EncryptionCodec(keys(A));
    const old = await before.encode([payloadOf(SENTINEL)]);
    const rotated = new EncryptionCodec(keys(`${B},${A}`));
    assert.equal(valueOf((await rotated.decode(old))[0]), SENTINEL);
    const [fresh] = await rotated.encode([payloadOf(SENTINEL)]);
    assert.equal(Buffer.from(fresh!.metadata![METADATA_KEY_ID]!).toString(), 'key-b');
    assert.equal(rotated.encryptionKeyId, 'key-b');
  });

  it('fails clearly, naming the key id and never the key, once key A is removed', async () => {
    const before = new EncryptionCodec(keys(A));
    const old = await before.encode([payloadOf(SENTINEL)]);
    const err = await rejection(new EncryptionCodec(keys(B)).decode(old));
    assert.equal(err.code, 'CODEC_UNKNOWN_KEY_ID');
    assert.equal(err.keyId, 'key-a');
    assert.match(err.message, /key id "key-a"/);
    assert.match(err.message, /configured: "key-b"/);
    for (const spec of [A, B]) {
      const material = spec.slice(spec.indexOf(':') + 1);
      assert.equal(err.message.includes(material), false, 'no key material in the message');
    }
  });

  it('refuses a payload that reuses a key id with different key material', async () => {
    const old = await new EncryptionCodec(keys(keySpec('same-id'))).encode([payloadOf(SENTINEL)]);
    const err = await rejection(new EncryptionCodec(keys(keySpec('same-id'))).decode(old));
    assert.equal(err.code, 'CODEC_DECRYPT_FAILED');
  });

  it('refuses an encrypted payload without a key id', async () => {
    const codec = new EncryptionCodec(keys(A));
    const [encrypted] = await codec.encode([payloadOf(SENTINEL)]);
    const err = await rejection(
      codec.decode([
        { data: encrypted!.data, metadata: { encoding: encrypted!.metadata!.encoding! } },
      ]),
    );
    assert.equal(err.code, 'CODEC_MISSING_KEY_ID');
  });

  it('passes payloads that were never encrypted through decode unchanged', async () => {
    const codec = new EncryptionCodec(keys(A));
    const plain = payloadOf({ written: 'before encryption was on' });
    assert.deepEqual(await codec.decode([plain]), [plain]);
  });
});

describe('encryption and codec server configuration', () => {
  const work = mkdtempSync(join(tmpdir(), 'codec-config-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('uses the dev-insecure key when no key is configured outside production', () => {
    const config = loadEncryptionConfig(parseEnv({}));
    assert.equal(config.development, true);
    assert.deepEqual(
      config.keys.map((k) => k.id),
      [DEV_KEY_ID],
    );
    assert.equal(DEV_KEY_ID, 'dev-insecure');
  });

  it('refuses the development key when NODE_ENV=production, naming the variable', () => {
    const err = configError(() => loadEncryptionConfig(parseEnv({ NODE_ENV: 'production' })));
    assert.match(err.message, /PAYLOAD_ENCRYPTION_KEYS: required when NODE_ENV=production/);
  });

  it('refuses the development key material in production even under another id', () => {
    const devKey = loadEncryptionConfig(parseEnv({})).keys[0].key.export();
    const err = configError(() =>
      loadEncryptionConfig(
        parseEnv({ NODE_ENV: 'production', PAYLOAD_ENCRYPTION_KEYS: keySpec('prod', devKey) }),
      ),
    );
    assert.match(err.message, /key id "prod" is the public development key/);
  });

  it('parses several comma-separated keys in order, the first one encrypting', () => {
    const config = keys(
      ` k1:${randomBytes(32).toString('base64')} , k2:${randomBytes(32).toString('base64url')}`,
    );
    assert.equal(config.development, false);
    assert.deepEqual(
      config.keys.map((k) => k.id),
      ['k1', 'k2'],
    );
  });

  it('reads keys from PAYLOAD_ENCRYPTION_KEYS_FILE, one per line', () => {
    const file = join(work, 'keys');
    writeFileSync(file, `${keySpec('file-1')}\n${keySpec('file-2')}\n`);
    const config = loadEncryptionConfig(parseEnv({ PAYLOAD_ENCRYPTION_KEYS_FILE: file }));
    assert.deepEqual(
      config.keys.map((k) => k.id),
      ['file-1', 'file-2'],
    );
    const missing = configError(() =>
      loadEncryptionConfig(parseEnv({ PAYLOAD_ENCRYPTION_KEYS_FILE: join(work, 'nope') })),
    );
    assert.match(missing.message, /PAYLOAD_ENCRYPTION_KEYS_FILE: cannot read .* \(ENOENT\)/);
  });

  it('refuses both PAYLOAD_ENCRYPTION_KEYS and PAYLOAD_ENCRYPTION_KEYS_FILE at once', () => {
    const err = configError(() =>
      loadEncryptionConfig(
        parseEnv({ PAYLOAD_ENCRYPTION_KEYS: keySpec('a'), PAYLOAD_ENCRYPTION_KEYS_FILE: '/x' }),
      ),
    );
    assert.match(err.message, /set only one of them/);
  });

  it('names every malformed entry by position or key id, never echoing key material', () => {
    const short = randomBytes(16).toString('base64');
    const bare = randomBytes(32).toString('base64');
    const problems: string[] = [];
    parseEncryptionKeys(
      `good:${randomBytes(32).toString('base64')},short:${short},${bare},bad!id:${bare},good:${bare},x:not*base64`,
      'PAYLOAD_ENCRYPTION_KEYS',
      problems,
    );
    assert.deepEqual(problems, [
      'PAYLOAD_ENCRYPTION_KEYS: entry 2 (key id "short"): the key must decode to exactly 32 bytes, got 16',
      'PAYLOAD_ENCRYPTION_KEYS: entry 3 is not of the form keyId:base64',
      'PAYLOAD_ENCRYPTION_KEYS: entry 4: the key id must be 1-64 characters of [A-Za-z0-9._-]',
      'PAYLOAD_ENCRYPTION_KEYS: entry 5: key id "good" is listed twice',
      'PAYLOAD_ENCRYPTION_KEYS: entry 6 (key id "x"): the key is not base64',
    ]);
    const all = problems.join('\n');
    assert.equal(all.includes(short) || all.includes(bare), false);
    const err = configError(() => keys(`short:${short}`));
    assert.match(err.message, /entry 1 \(key id "short"\)/);
  });

  it('never shows key material when the config is inspected or serialized', () => {
    const material = randomBytes(32);
    const config = keys(keySpec('k', material));
    const shown = inspect(config, { depth: 10 }) + JSON.stringify(config);
    assert.equal(shown.includes(material.toString('base64')), false);
    assert.equal(shown.includes(material.toString('hex')), false);
  });

  it('uses the dev-codec-token outside production and refuses it in production', () => {
    const dev = loadCodecServerConfig(parseEnv({}));
    assert.equal(dev.token, DEV_CODEC_TOKEN);
    assert.equal(dev.token, 'dev-codec-token');
    assert.equal(dev.developmentToken, true);
    assert.deepEqual(dev.corsOrigins, ['http://localhost:8233']);
    assert.equal(dev.port, 8888);
    const unset = configError(() => loadCodecServerConfig(parseEnv({ NODE_ENV: 'production' })));
    assert.match(unset.message, /CODEC_SERVER_TOKEN: required when NODE_ENV=production/);
    const devToken = configError(() =>
      loadCodecServerConfig(
        parseEnv({ NODE_ENV: 'production', CODEC_SERVER_TOKEN: DEV_CODEC_TOKEN }),
      ),
    );
    assert.match(devToken.message, /CODEC_SERVER_TOKEN: the development token is refused/);
    const prod = loadCodecServerConfig(
      parseEnv({
        NODE_ENV: 'production',
        CODEC_SERVER_TOKEN: 'a-long-enough-production-token',
        CODEC_CORS_ORIGIN: 'https://temporal.example.com/, http://localhost:8233',
        CODEC_SERVER_PORT: '9999',
      }),
    );
    assert.deepEqual(prod.corsOrigins, ['https://temporal.example.com', 'http://localhost:8233']);
    assert.equal(prod.port, 9999);
  });

  it('refuses a CORS origin with a path, and accepts an empty one as no CORS', () => {
    const err = configError(() =>
      loadCodecServerConfig(parseEnv({ CODEC_CORS_ORIGIN: 'http://localhost:8233/ui' })),
    );
    assert.match(err.message, /CODEC_CORS_ORIGIN: "http:\/\/localhost:8233\/ui" is not an origin/);
    assert.deepEqual(loadCodecServerConfig(parseEnv({ CODEC_CORS_ORIGIN: '' })).corsOrigins, []);
  });
});
