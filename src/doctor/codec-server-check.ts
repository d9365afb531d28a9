/**
 * The codec server as the Temporal UI uses it: `POST /decode` without a token must be refused; with
 * CODEC_SERVER_TOKEN, a payload encrypted here must come back decoded. Gathers the facts.
 */
import type { EncryptionCodec } from '../codec';
import type { Config } from '../config';
import type { CheckResult } from './check-result';
import { type HttpFacts, codecServerVerdict } from './payload-verdicts';

/** The codec server's deadline per call, ms. */
const HTTP_TIMEOUT_MS = 5_000;

async function post(
  url: string,
  body: unknown,
  token?: string,
): Promise<HttpFacts & { json?: unknown }> {
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
    return {
      kind: 'answered',
      status: res.status,
      ...(typeof message === 'string' ? { message: message.slice(0, 160) } : {}),
      json,
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    return { kind: 'unreachable', reason };
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
  const unauthenticated = await post(decode, { payloads: [] });
  let authenticated: (HttpFacts & { decoded?: boolean }) | undefined;
  if (token !== undefined && unauthenticated.kind === 'answered') {
    const plain = {
      metadata: { encoding: Buffer.from('json/plain') },
      data: Buffer.from('"doctor"'),
    };
    const [sent] = await codec.encode([plain]);
    const answer = await post(
      decode,
      {
        payloads: [
          {
            metadata: Object.fromEntries(
              Object.entries(sent?.metadata ?? {}).map(([k, v]) => [k, b64(v)]),
            ),
            data: b64(sent?.data),
          },
        ],
      },
      token,
    );
    const back = (answer.json as { payloads?: { data?: string }[] } | undefined)?.payloads?.[0];
    const { json: _json, ...facts } = answer;
    authenticated = { ...facts, decoded: back?.data === b64(plain.data) };
  }
  const { json: _json, ...u } = unauthenticated;
  return codecServerVerdict({
    url,
    configured,
    unauthenticated: u,
    ...(authenticated === undefined ? {} : { authenticated }),
  });
}
