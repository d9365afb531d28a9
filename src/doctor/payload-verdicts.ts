/** Verdicts of `doctor namespace` on the payload keys and the codec server. Pure. */
import { type CheckResult, resultsOf } from './check-result';

/** What the first input payload of the most recent workflow of the task queue came to. */
export type PayloadFacts =
  | { readonly kind: 'none' }
  | { readonly kind: 'clear'; readonly workflowId: string }
  | { readonly kind: 'decoded'; readonly workflowId: string; readonly keyId: string }
  | {
      readonly kind: 'unknown-key' | 'decrypt-failed' | 'malformed';
      readonly workflowId: string;
      readonly keyId: string | undefined;
    };

/** `payload-keys`: the configured keys read what the workers wrote. */
export function payloadKeysVerdict(input: {
  readonly taskQueue: string;
  /** The configured key ids, the encrypting one first. */
  readonly keyIds: readonly string[];
  /** The public development key is configured (no PAYLOAD_ENCRYPTION_KEYS). */
  readonly development: boolean;
  readonly facts: PayloadFacts;
}): CheckResult {
  const { ok, warn, fail } = resultsOf('payload-keys');
  const ids = input.keyIds.map((k) => `"${k}"`).join(', ');
  const f = input.facts;
  const dev = input.development
    ? ' (the public development key: set PAYLOAD_ENCRYPTION_KEYS before real guests)'
    : '';
  if (f.kind === 'none') {
    return warn(
      `no recent workflow to check on task queue '${input.taskQueue}'${dev}`,
      'nothing; run the doctor again after the first booking to see the keys read it',
    );
  }
  const wf = `the input of workflow ${f.workflowId} (the most recent on '${input.taskQueue}')`;
  if (f.kind === 'clear') {
    return fail(
      `${wf} is not encrypted`,
      "guest data sits in clear in Temporal (docs/hard-rules.md): whatever starts bookings must use the product's codec with PAYLOAD_ENCRYPTION_KEYS (BookingClient, or docs/payload-encryption.md for other languages)",
    );
  }
  if (f.kind === 'decoded') {
    const rotated =
      f.keyId === input.keyIds[0]
        ? []
        : [`new payloads are encrypted with "${input.keyIds[0] ?? '?'}" (key rotation)`];
    const evidence = `${wf} was encrypted with key id "${f.keyId}", among PAYLOAD_ENCRYPTION_KEYS' ids (${ids}), and decodes`;
    return input.development
      ? warn(`${evidence}${dev}`, 'anyone with the source code can read the payloads', rotated)
      : ok(evidence, rotated);
  }
  const keep =
    'keep every key that encrypted payloads still in Temporal listed in PAYLOAD_ENCRYPTION_KEYS (docs/payload-encryption.md)';
  if (f.kind === 'unknown-key') {
    return fail(
      `${wf} was encrypted with key id "${f.keyId ?? '?'}", which is not among PAYLOAD_ENCRYPTION_KEYS' ids (${ids})`,
      `workers with these keys cannot read the bookings written with "${f.keyId ?? '?'}": their workflow tasks fail. Add that key; ${keep}`,
    );
  }
  if (f.kind === 'decrypt-failed') {
    return fail(
      `${wf} names key id "${f.keyId ?? '?'}", which is configured, but that key does not decrypt it`,
      `workers with these keys cannot read those bookings: the key configured under "${f.keyId ?? '?'}" is not the one that encrypted them. Set the right key under that id; ${keep}`,
    );
  }
  return fail(
    `${wf} is marked encrypted but is not a payload the product's codec wrote${f.keyId ? ` (key id "${f.keyId}")` : ' (no key id)'}`,
    'workers cannot read it: find what starts workflows on this task queue with another codec',
  );
}

/** An HTTP call to the codec server: its status, or why none came. */
export type HttpFacts =
  | { readonly kind: 'answered'; readonly status: number; readonly message?: string }
  | { readonly kind: 'unreachable'; readonly reason: string };

/** `codec-server`: reachable, refusing an unauthenticated call, and decoding ours with the token. */
export function codecServerVerdict(input: {
  readonly url: string;
  /** CODEC_SERVER_URL was set (else the default local URL was tried). */
  readonly configured: boolean;
  /** POST /decode without a token. */
  readonly unauthenticated: HttpFacts;
  /** POST /decode of a payload of ours with CODEC_SERVER_TOKEN; absent: no token here. */
  readonly authenticated?: HttpFacts & { readonly decoded?: boolean };
}): CheckResult {
  const { ok, warn, fail } = resultsOf('codec-server');
  const at = `the codec server at ${input.url}`;
  const u = input.unauthenticated;
  if (u.kind === 'unreachable') {
    const evidence = `no answer from ${at} (${u.reason})`;
    const breaks =
      'operators see encrypted payloads in the Temporal UI and CLI (no input, result or failure message readable): run the codec server (docs/deploying.md) and set CODEC_SERVER_URL to the address the UI uses';
    return input.configured
      ? fail(evidence, breaks)
      : warn(`${evidence}; CODEC_SERVER_URL is not set, so the default was tried`, breaks);
  }
  if (u.status >= 200 && u.status < 300) {
    return fail(
      `${at} decoded a call without a token (POST /decode answered ${u.status})`,
      'anyone who reaches it can decrypt guest data: require a token (CODEC_SERVER_TOKEN) or put authentication in front of it',
    );
  }
  if (u.status !== 401 && u.status !== 403) {
    return fail(
      `${at} answered ${u.status} to POST /decode without a token, not 401`,
      "it is not the product's codec server, or the URL lacks its path: set CODEC_SERVER_URL to the codec server's base URL",
    );
  }
  const refused = `${at} refused a call without a token (${u.status})`;
  const a = input.authenticated;
  if (a === undefined) {
    return ok(refused, [
      'CODEC_SERVER_TOKEN is not set here: decoding a payload of ours was not tried',
    ]);
  }
  if (a.kind === 'answered' && a.status === 200 && a.decoded === true) {
    return ok(`${refused} and decoded a payload of ours with CODEC_SERVER_TOKEN`);
  }
  const got =
    a.kind === 'unreachable'
      ? `no answer (${a.reason})`
      : `${a.status}${a.message ? ` (${a.message})` : ''}`;
  const why =
    a.kind === 'answered' && a.status === 401
      ? 'it refuses CODEC_SERVER_TOKEN: set the token the codec server was started with'
      : a.kind === 'answered' && a.status === 422
        ? 'it lacks our payload keys: start it with the same PAYLOAD_ENCRYPTION_KEYS as the workers'
        : 'it did not give back the payload it was sent';
  return fail(
    `${refused}, but decoding a payload of ours with CODEC_SERVER_TOKEN got ${got}`,
    `operators cannot read payloads in the Temporal UI: ${why}`,
  );
}
