/**
 * Workflow histories as bytes to scan: as the server stores them (protobuf, and protobuf JSON with
 * bytes in base64, which is how the UI and the CLI show them), and decoded with the codec (every
 * payload decrypted in place), which is what anyone holding the keys sees.
 */
import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type Payload = temporal.api.common.v1.IPayload;
const HistoryMessage = temporal.api.history.v1.History;

/** The history's protobuf bytes followed by its protobuf JSON (bytes as base64). */
export function rawHistoryBytes(history: History): Buffer {
  const message = HistoryMessage.fromObject(history);
  const proto = Buffer.from(HistoryMessage.encode(message).finish());
  const json = JSON.stringify(
    HistoryMessage.toObject(message, { bytes: String, enums: String, longs: String }),
  );
  return Buffer.concat([proto, Buffer.from(json, 'utf8')]);
}

const isPayload = (v: unknown): v is Payload =>
  typeof v === 'object' &&
  v !== null &&
  'metadata' in v &&
  typeof (v as { metadata: unknown }).metadata === 'object' &&
  (v as { metadata: unknown }).metadata !== null &&
  'encoding' in ((v as { metadata: object }).metadata as object);

export interface DecodedHistory {
  /** The history with every payload decoded, then as {@link rawHistoryBytes}. */
  readonly bytes: Buffer;
  readonly payloads: number;
  /** Payloads that were encrypted, by key id. */
  readonly encryptedByKey: Record<string, number>;
  /** Payloads stored in clear (encoding other than binary/encrypted). */
  readonly plain: { path: string; encoding: string }[];
}

/** Decodes every payload of `history` with `codec` (throws when one cannot be decoded). */
export async function decodeHistory(
  history: History,
  codec: PayloadCodec,
): Promise<DecodedHistory> {
  const copy = HistoryMessage.toObject(HistoryMessage.fromObject(history), {
    defaults: false,
  }) as History;
  let payloads = 0;
  const encryptedByKey: Record<string, number> = {};
  const plain: DecodedHistory['plain'] = [];
  async function walk(node: unknown, path: string): Promise<unknown> {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) node[i] = await walk(node[i], `${path}[${i}]`);
      return node;
    }
    if (node instanceof Uint8Array || typeof node !== 'object' || node === null) return node;
    if (isPayload(node)) {
      payloads += 1;
      const meta = node.metadata ?? {};
      const encoding = Buffer.from(meta.encoding ?? []).toString('utf8');
      if (encoding === 'binary/encrypted') {
        const keyId = Buffer.from(meta['encryption-key-id'] ?? []).toString('utf8') || '?';
        encryptedByKey[keyId] = (encryptedByKey[keyId] ?? 0) + 1;
      } else {
        plain.push({ path, encoding });
      }
      const [decoded] = await codec.decode([
        { metadata: meta as Record<string, Uint8Array>, data: node.data ?? new Uint8Array() },
      ]);
      return decoded;
    }
    for (const [k, v] of Object.entries(node)) {
      (node as Record<string, unknown>)[k] = await walk(v, `${path}.${k}`);
    }
    return node;
  }
  await walk(copy, 'history');
  return { bytes: rawHistoryBytes(copy), payloads, encryptedByKey, plain };
}

/** Histories of every workflow that matches `query` (e.g. `TaskQueue = 'x'`), read raw. */
export async function fetchHistories(
  client: Client,
  query: string,
): Promise<{ workflowId: string; history: History }[]> {
  const out: { workflowId: string; history: History }[] = [];
  for await (const wf of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    out.push({ workflowId: wf.workflowId, history });
  }
  return out;
}
