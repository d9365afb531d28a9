/**
 * The codec server, fuzzed over real HTTP on loopback: hostile methods, paths, tokens, origins and
 * bodies (malformed, truncated, deeply nested, over the size cap, wrongly typed payloads, unknown
 * key ids, encrypted payloads decoded without the token). Every answer must be one the docs give
 * (docs/payload-encryption.md): 200 with payloads, 204 to an allowed preflight, or a JSON error
 * `{ error, message }` with 400, 401, 403, 404, 405, 413 or 422; never a 500, never the server
 * down, never the token, a key or a decrypted value where the request had no right to it.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import fc from 'fast-check';
import { defaultPayloadConverter } from '@temporalio/common';
import { parseEnv } from '../../src/config';
import { buildCodecServer, EncryptionCodec, loadEncryptionConfig } from '../../src/codec';
import {
  defect,
  HOSTILE_TEXT,
  tally,
  type CampaignOptions,
  type Surface,
  type Tally,
} from './campaign';

const TOKEN = `fuzz-token-${randomBytes(12).toString('hex')}`;
const KEY = randomBytes(32).toString('base64');
const ORIGIN = 'http://localhost:8233';
const SENTINEL = 'SENTINEL-guest-Ada-Lovelace-1815';
const MAX_BODY = 64 * 1024;
const DOCUMENTED = new Set([200, 204, 400, 401, 403, 404, 405, 413, 422]);
const DEADLINE_MS = 5_000;

const codec = new EncryptionCodec(
  loadEncryptionConfig(parseEnv({ PAYLOAD_ENCRYPTION_KEYS: `k1:${KEY}` })),
);
const b64 = (b: Uint8Array | string) => Buffer.from(b).toString('base64');
const json = (p: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data ?? new Uint8Array(0)),
});

interface Req {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
}

/** An encrypted payload of the sentinel, as the UI would send it to decode. */
async function secretPayload() {
  const [p] = await codec.encode([defaultPayloadConverter.toPayload(SENTINEL)]);
  return json(p!);
}

function requests(encrypted: object): fc.Arbitrary<Req> {
  const path = fc.oneof(
    fc.constantFrom(
      '/encode',
      '/decode',
      '/default/decode',
      '/ns/encode/',
      `/t/${TOKEN}/decode`,
      '/t/wrong/decode',
      '/health',
      '//decode',
      '/t//decode',
      '/../decode',
      '/decode?x=1',
      '/decode/extra',
    ),
    fc.string({ maxLength: 40 }).map((s) => `/${encodeURIComponent(s)}`),
  );
  const auth = fc.oneof(
    fc.constant(`Bearer ${TOKEN}`),
    fc.constant(undefined),
    fc.constantFrom(
      `bearer   ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      'Bearer',
      `Basic ${b64(`u:${TOKEN}`)}`,
      `Bearer ${'x'.repeat(8000)}`,
    ),
    fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
  );
  const payloadish = fc.oneof(
    fc.constant(encrypted),
    fc.constant(json(defaultPayloadConverter.toPayload(SENTINEL))),
    fc.constant({
      ...(encrypted as { metadata: Record<string, string> }),
      metadata: {
        ...(encrypted as { metadata: Record<string, string> }).metadata,
        'encryption-key-id': b64('unknown-key'),
      },
    }),
    fc.record({
      metadata: fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 })),
      data: fc.string({ maxLength: 40 }),
    }),
    fc.anything({ maxDepth: 3 }),
  );
  const body = fc.oneof(
    payloadish.map((p) => JSON.stringify({ payloads: [p] })),
    fc.array(payloadish, { maxLength: 4 }).map((ps) => JSON.stringify({ payloads: ps })),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.constantFrom(...HOSTILE_TEXT),
    fc.constantFrom(
      '['.repeat(100_000),
      '{"payloads":['.repeat(20_000),
      '{"payloads":',
      '{"payloads":[{"data":"AAAA',
    ),
    fc.constant(JSON.stringify({ payloads: [{ data: 'A'.repeat(2 * MAX_BODY) }] })),
    fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  );
  return fc.record({
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constant('POST') },
      { weight: 2, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH') },
    ),
    path,
    headers: fc
      .record(
        {
          authorization: auth,
          origin: fc.constantFrom(ORIGIN, 'http://evil.example', 'null'),
          'content-type': fc.constantFrom(
            'application/json',
            'text/html',
            'application/x-www-form-urlencoded',
            '',
          ),
        },
        { requiredKeys: [] },
      )
      .map(
        (h) =>
          Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<
            string,
            string
          >,
      ),
    body,
  });
}

function send(base: string, r: Req): Promise<{ status: number; body: string } | 'no answer'> {
  // Every body with its length: Node's client frames DELETE and OPTIONS bodies with neither a
  // length nor chunks, which a server can only read as the next request.
  const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body;
  const headers = {
    ...r.headers,
    ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
  };
  return new Promise((resolve) => {
    const url = new URL(base);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: r.method,
        path: r.path,
        headers,
        timeout: DEADLINE_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve('no answer');
    });
    // A refused upload closes the connection under the rest of the body: the answer came first.
    req.on('error', () => resolve('no answer'));
    req.end(body);
  });
}

function judge(
  t: Tally,
  r: Req,
  answer: Awaited<ReturnType<typeof send>>,
  internal: boolean,
): void {
  const input = `${r.method} ${r.path} ${JSON.stringify(r.headers).slice(0, 120)} body ${String(r.body).slice(0, 120)}`;
  if (internal) defect(t, 'crashes', input, 'the server failed internally (onError)');
  if (answer === 'no answer') {
    // An upload over the cap may be cut once answered 413; anything else must be answered.
    if (r.body.length <= MAX_BODY) defect(t, 'stuck', input, `no answer within ${DEADLINE_MS} ms`);
    return;
  }
  const authorized =
    r.headers.authorization?.replace(/^bearer\s+/i, 'Bearer ') === `Bearer ${TOKEN}` ||
    r.path.startsWith(`/t/${TOKEN}/`);
  if (
    answer.body.includes(TOKEN) ||
    answer.body.includes(KEY) ||
    (!authorized && answer.body.includes(b64(JSON.stringify(SENTINEL))))
  )
    defect(t, 'leaks', input, `answer ${answer.status} holds a secret`);
  if (!DOCUMENTED.has(answer.status)) {
    defect(t, 'unclear', input, `undocumented status ${answer.status}`);
    return;
  }
  if (answer.status >= 400 && r.method !== 'HEAD') {
    let doc: { error?: unknown; message?: unknown } = {};
    try {
      doc = JSON.parse(answer.body) as typeof doc;
    } catch {
      /* judged below */
    }
    if (typeof doc.error !== 'string' || typeof doc.message !== 'string')
      defect(
        t,
        'unclear',
        input,
        `error ${answer.status} without { error, message }: ${answer.body.slice(0, 100)}`,
      );
  }
}

export const codecServerSurface: Surface = {
  name: 'codec-server',
  async run({ seed, count, until }: CampaignOptions) {
    const t = tally('codec-server', {});
    const failures: unknown[] = [];
    const server = buildCodecServer({
      codec,
      token: TOKEN,
      corsOrigin: ORIGIN,
      maxBodyBytes: MAX_BODY,
      onError: (e) => failures.push(e),
    });
    const base = await server.listen(0);
    try {
      const inputs = fc.sample(requests(await secretPayload()), { seed, numRuns: count });
      for (const r of inputs) {
        if (Date.now() > until) break;
        t.inputs += 1;
        const before = failures.length;
        judge(t, r, await send(base, r), failures.length > before);
      }
      const health = await send(base, { method: 'GET', path: '/health', headers: {}, body: '' });
      if (health === 'no answer' || health.status !== 200)
        defect(t, 'crashes', 'GET /health after the campaign', 'the server is down');
    } finally {
      await server.close();
    }
    return t;
  },
};
