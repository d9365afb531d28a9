import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { parseEnv } from '../../src/config';
import {
  buildCodecServer,
  EncryptionCodec,
  loadEncryptionConfig,
  METADATA_KEY_ID,
  type CodecServer,
} from '../../src/codec';

const TOKEN = 'test-token-0123456789';
const UI_ORIGIN = 'http://localhost:8233';
const OTHER_ORIGIN = 'http://evil.example';
const SENTINEL = 'SENTINEL-guest-Grace-Hopper-1906';
const MAX_BODY = 64 * 1024;

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}

/** A payload as the Temporal UI sends it: proto3 JSON, every bytes field base64. */
function jsonPayload(value: unknown): JsonPayload {
  const p = defaultPayloadConverter.toPayload(value);
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array(0)).toString('base64'),
  };
}

function valueOfJson(p: JsonPayload): unknown {
  return defaultPayloadConverter.fromPayload({
    metadata: Object.fromEntries(
      Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
    ),
    data: Buffer.from(p.data, 'base64'),
  });
}

describe('codec server over real HTTP', () => {
  let server: CodecServer;
  let url: string;
  const keyA = `key-a:${randomBytes(32).toString('base64')}`;
  const codec = new EncryptionCodec(
    loadEncryptionConfig(parseEnv({ PAYLOAD_ENCRYPTION_KEYS: keyA })),
  );
  const errors: unknown[] = [];

  before(async () => {
    server = buildCodecServer({
      codec,
      token: TOKEN,
      corsOrigin: UI_ORIGIN,
      maxBodyBytes: MAX_BODY,
      onError: (err) => errors.push(err),
    });
    url = await server.listen(0);
  });
  after(async () => {
    await server.close();
    assert.deepEqual(errors, [], 'no request made the server fail internally');
  });

  function post(path: string, body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${url}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${TOKEN}`,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  it('answers /health with 200 and no token', async () => {
    const res = await fetch(`${url}/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('answers 401 JSON without a token, with a wrong token, and with a non-Bearer scheme', async () => {
    const body = { payloads: [jsonPayload(SENTINEL)] };
    for (const headers of [
      { Authorization: '' },
      { Authorization: 'Bearer wrong-token' },
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `Basic ${b64(`user:${TOKEN}`)}` },
      { Authorization: `Bearer ${TOKEN} extra` },
    ]) {
      for (const path of ['/encode', '/decode']) {
        const res = await post(path, body, headers);
        assert.equal(res.status, 401, `${path} with ${JSON.stringify(headers)}`);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
        const json = (await res.json()) as { error: string };
        assert.equal(json.error, 'unauthorized');
      }
    }
  });

  it('accepts the token in the capability path the Web UI uses, and refuses a wrong one', async () => {
    const body = { payloads: [jsonPayload(SENTINEL)] };
    const ok = await post(`/t/${encodeURIComponent(TOKEN)}/encode`, body, { Authorization: '' });
    assert.equal(ok.status, 200);
    const encoded = (await ok.json()) as { payloads: JsonPayload[] };
    const back = await post(`/t/${encodeURIComponent(TOKEN)}/decode`, encoded, {
      Authorization: '',
    });
    assert.deepEqual(
      ((await back.json()) as { payloads: JsonPayload[] }).payloads.map(valueOfJson),
      [SENTINEL],
    );
    for (const path of ['/t/wrong-token/decode', '/t//decode', `/t/${TOKEN}x/decode`]) {
      const res = await post(path, encoded, { Authorization: '' });
      assert.ok(res.status === 401 || res.status === 404, `${path} answered ${res.status}`);
      assert.notEqual(res.status, 200);
    }
  });

  it('encodes and decodes a round trip with the token, in proto3 JSON', async () => {
    const input = { payloads: [jsonPayload({ guest: SENTINEL }), jsonPayload('second')] };
    const encodedRes = await post('/encode', input, { 'X-Namespace': 'default' });
    assert.equal(encodedRes.status, 200);
    assert.equal(encodedRes.headers.get('cache-control'), 'no-store');
    const encoded = (await encodedRes.json()) as { payloads: JsonPayload[] };
    assert.equal(encoded.payloads.length, 2);
    const first = encoded.payloads[0]!;
    assert.equal(unb64(first.metadata.encoding!), 'binary/encrypted');
    assert.equal(unb64(first.metadata[METADATA_KEY_ID]!), 'key-a');
    assert.equal(JSON.stringify(encoded).includes(b64(SENTINEL).slice(0, 12)), false);
    assert.equal(Buffer.from(first.data, 'base64').includes(SENTINEL), false);

    const decodedRes = await post('/decode', encoded, { 'X-Namespace': 'default' });
    assert.equal(decodedRes.status, 200);
    const decoded = (await decodedRes.json()) as { payloads: JsonPayload[] };
    assert.deepEqual(decoded.payloads.map(valueOfJson), [{ guest: SENTINEL }, 'second']);
    assert.deepEqual(decoded.payloads, input.payloads);
  });

  it('decodes what the worker encrypted, under a namespace path segment as the CLI sends it', async () => {
    const [p] = await codec.encode([defaultPayloadConverter.toPayload(SENTINEL)]);
    const body = {
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(p!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(p!.data!).toString('base64'),
        },
      ],
    };
    const res = await post('/default/decode', body);
    assert.equal(res.status, 200);
    const decoded = (await res.json()) as { payloads: JsonPayload[] };
    assert.equal(valueOfJson(decoded.payloads[0]!), SENTINEL);
  });

  it('answers a CORS preflight from the configured origin with 204 and the allowed headers', async () => {
    const res = await fetch(`${url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), UI_ORIGIN);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(
      res.headers.get('access-control-allow-headers'),
      'Authorization, Content-Type, X-Namespace',
    );
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(res.headers.get('vary') ?? '', /Origin/);
  });

  it('gives another origin no CORS headers, in the preflight or the request itself', async () => {
    const preflight = await fetch(`${url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: OTHER_ORIGIN, 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(preflight.status, 403);
    for (const name of [
      'access-control-allow-origin',
      'access-control-allow-credentials',
      'access-control-allow-headers',
    ]) {
      assert.equal(preflight.headers.get(name), null, name);
    }
    const actual = await post('/encode', { payloads: [] }, { Origin: OTHER_ORIGIN });
    assert.equal(actual.headers.get('access-control-allow-origin'), null);

    const allowed = await post('/encode', { payloads: [] }, { Origin: UI_ORIGIN });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), UI_ORIGIN);
    const denied = await post(
      '/encode',
      { payloads: [] },
      { Origin: UI_ORIGIN, Authorization: '' },
    );
    assert.equal(denied.status, 401);
    assert.equal(
      denied.headers.get('access-control-allow-origin'),
      UI_ORIGIN,
      'the UI can read why it was refused',
    );
  });

  it('answers malformed bodies with 4xx, never 5xx', async () => {
    const cases: Array<[string, number]> = [
      ['', 400],
      ['not json', 400],
      ['{"payloads":', 400],
      ['null', 400],
      ['[]', 400],
      // proto3 JSON: no list is an empty list (the Temporal CLI's query without arguments).
      ['{}', 200],
      ['{"payloads":{}}', 400],
      ['{"payloads":[1]}', 400],
      ['{"payloads":[{"data":42}]}', 400],
      ['{"payloads":[{"data":"not base64!"}]}', 400],
      ['{"payloads":[{"metadata":{"encoding":7}}]}', 400],
      ['{"payloads":[{"metadata":"x"}]}', 400],
      ['{"payloads":[{"metadata":{"__proto__":"eA=="},"data":""}]}', 200],
    ];
    for (const [body, status] of cases) {
      const res = await post('/encode', body);
      assert.equal(res.status, status, `encode ${JSON.stringify(body)}`);
      const json = (await res.json()) as { error?: string };
      if (status === 400) assert.equal(typeof json.error, 'string');
    }
    // Encrypted-looking payloads that cannot be decrypted are the client's problem, not ours.
    const encrypted = { metadata: { encoding: b64('binary/encrypted') } };
    const undecodable: Array<[unknown, string]> = [
      [{ payloads: [{ ...encrypted, data: b64('short') }] }, 'CODEC_MISSING_KEY_ID'],
      [
        {
          payloads: [
            { metadata: { ...encrypted.metadata, [METADATA_KEY_ID]: b64('gone') }, data: '' },
          ],
        },
        'CODEC_UNKNOWN_KEY_ID',
      ],
      [
        {
          payloads: [
            {
              metadata: { ...encrypted.metadata, [METADATA_KEY_ID]: b64('key-a') },
              data: randomBytes(64).toString('base64'),
            },
          ],
        },
        'CODEC_DECRYPT_FAILED',
      ],
    ];
    for (const [body, code] of undecodable) {
      const res = await post('/decode', body);
      assert.equal(res.status, 422, code);
      const json = (await res.json()) as { error: string; message: string };
      assert.equal(json.error, code);
    }
  });

  it('refuses an oversized body with 413 before reading it all', async () => {
    const big = JSON.stringify({ payloads: [{ data: 'A'.repeat(MAX_BODY * 2) }] });
    const declared = await post('/encode', big);
    assert.equal(declared.status, 413);
    // Chunked, so the cap is enforced while streaming rather than from Content-Length.
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${url}/encode`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(big.slice(0, MAX_BODY));
      req.write(big.slice(MAX_BODY, MAX_BODY + 1024));
      req.end(big.slice(MAX_BODY + 1024));
    });
    assert.equal(streamed, 413);
  });

  it('answers unknown paths with 404 and wrong methods with 405', async () => {
    assert.equal((await post('/elsewhere', { payloads: [] })).status, 404);
    assert.equal((await fetch(`${url}/decode`)).status, 405);
    assert.equal((await post('/health', {})).status, 405);
  });
});
