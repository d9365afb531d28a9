/** The facts of the `codec-server` check: the codec server, called as the Temporal UI calls it. */
import type { EncryptionCodec } from '../codec';
import type { Config } from '../config';
import type { CheckResult } from './check-result';
import { type HttpFacts, codecServerVerdict } from './payload-verdicts';

/** The codec server's deadline per call, ms. */
const HTTP_TIMEOUT_MS = 5_000;

/** What a call came to, and the JSON answered, if any. */
type Posted = { facts: HttpFacts; json?: unknown };

async function post(url: string, body: unknown, token?: string): Promise<Posted> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
      redirect: 'manual',
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const message = (json as { message?: unknown } | undefined)?.message;
    const facts: HttpFacts = {
      kind: 'answered',
      status: res.status,
      ...(typeof message === 'string' ? { message: message.slice(0, 160) } : {}),
    };
    return { facts, json };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    return { facts: { kind: 'unreachable', reason } };
  }
}

const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');

/** POST /decode without a token, then a payload of ours with the token (when there is one). */
export async function codecServerCheck(
  target: Config['codecServer'],
  codec: EncryptionCodec,
): Promise<CheckResult> {
  const { url, configured, token } = target;
  const decode = `${url}/decode`;
  const unauthenticated = (await post(decode, { payloads: [] })).facts;
  let authenticated: (HttpFacts & { decoded?: boolean }) | undefined;
  if (token !== undefined && unauthenticated.kind === 'answered') {
    const plain = {
      metadata: { encoding: Buffer.from('json/plain') },
      data: Buffer.from('"doctor"'),
    };
    const [sent] = await codec.encode([plain]);
    const metadata = Object.entries(sent?.metadata ?? {}).map(([k, v]) => [k, b64(v)]);
    const payload = { metadata: Object.fromEntries(metadata), data: b64(sent?.data) };
    const { facts, json } = await post(decode, { payloads: [payload] }, token);
    const back = (json as { payloads?: { data?: string }[] } | undefined)?.payloads?.[0];
    authenticated = { ...facts, decoded: back?.data === b64(plain.data) };
  }
  return codecServerVerdict({ url, configured, unauthenticated, authenticated });
}
