/**
 * AES-256-GCM payload encryption for everything the worker and the client send to Temporal
 * (docs/hard-rules.md, rule 9: guest data is never in clear in Temporal). The format (the layout
 * of Temporal's encryption samples, so tooling written for them reads ours) and key rotation:
 * docs/payload-encryption.md.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { EncryptionConfig, EncryptionKey } from './types';

/** `metadata.encoding` of an encrypted payload. */
export const ENCODING_ENCRYPTED = 'binary/encrypted';
/** The metadata entry naming the key that encrypted a payload. */
export const METADATA_KEY_ID = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
/** 96-bit IV: the size GCM is specified for; random per payload. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ENCODING_ENCRYPTED_BYTES = encoder.encode(ENCODING_ENCRYPTED);

/** Stable codes, for callers that match on them rather than on messages. */
export const PayloadCodecErrorCode = {
  /** The payload names a key id that is not configured (a key was removed too early). */
  CODEC_UNKNOWN_KEY_ID: 'CODEC_UNKNOWN_KEY_ID',
  /** An encrypted payload without `encryption-key-id` metadata. */
  CODEC_MISSING_KEY_ID: 'CODEC_MISSING_KEY_ID',
  /** Authentication failed: the ciphertext was altered, or the key under that id changed. */
  CODEC_DECRYPT_FAILED: 'CODEC_DECRYPT_FAILED',
  /** Too short to hold an IV and a tag, or the decrypted bytes are not a payload. */
  CODEC_MALFORMED_PAYLOAD: 'CODEC_MALFORMED_PAYLOAD',
} as const;
export type PayloadCodecErrorCode =
  (typeof PayloadCodecErrorCode)[keyof typeof PayloadCodecErrorCode];

/** A payload that cannot be decrypted. Its message names the key id, never key material. */
export class PayloadCodecError extends Error {
  constructor(
    readonly code: PayloadCodecErrorCode,
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
    this.name = 'PayloadCodecError';
  }
}

/** A Temporal {@link PayloadCodec} encrypting with AES-256-GCM under rotating keys. */
export class EncryptionCodec implements PayloadCodec {
  readonly #encryptWith: EncryptionKey;
  readonly #keys: ReadonlyMap<string, EncryptionKey>;
  /** Key ids of the payloads decrypted since the last {@link takeDecryptedKeyIds}. */
  readonly #decryptedWith = new Set<string>();

  constructor(config: Pick<EncryptionConfig, 'keys'>) {
    const [first] = config.keys;
    this.#encryptWith = first;
    this.#keys = new Map(config.keys.map((k) => [k.id, k]));
  }

  /** The id of the key new payloads are encrypted with. */
  get encryptionKeyId(): string {
    return this.#encryptWith.id;
  }

  /** Every key id this codec can decrypt, the encrypting one first. */
  get keyIds(): readonly string[] {
    return [...this.#keys.keys()];
  }

  /**
   * The key ids of the payloads this codec decrypted since the last call (and forgets them): what
   * the writers of those payloads encrypt with, for a caller about to write to the same readers.
   */
  takeDecryptedKeyIds(): string[] {
    const ids = [...this.#decryptedWith];
    this.#decryptedWith.clear();
    return ids;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decrypt(p));
  }

  private encrypt(payload: Payload): Payload {
    const { id, key } = this.#encryptWith;
    const plaintext = temporal.api.common.v1.Payload.encode(payload).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
    const data = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: ENCODING_ENCRYPTED_BYTES,
        [METADATA_KEY_ID]: encoder.encode(id),
      },
      data,
    };
  }

  private decrypt(payload: Payload): Payload {
    // Payloads written before encryption was turned on (or by a codec-less client) stay readable.
    if (!isEncrypted(payload)) return payload;
    const idBytes = payload.metadata?.[METADATA_KEY_ID];
    if (!idBytes || idBytes.length === 0) {
      throw new PayloadCodecError(
        'CODEC_MISSING_KEY_ID',
        `Cannot decrypt a payload: it has no '${METADATA_KEY_ID}' metadata`,
      );
    }
    const keyId = decoder.decode(idBytes);
    const fail = (code: PayloadCodecErrorCode, why: string) =>
      new PayloadCodecError(code, `Cannot decrypt a payload with key id "${keyId}": ${why}`, keyId);
    const entry = this.#keys.get(keyId);
    if (!entry) {
      throw new PayloadCodecError(
        'CODEC_UNKNOWN_KEY_ID',
        `Cannot decrypt a payload encrypted with key id "${keyId}": that key is not configured ` +
          `(configured: ${this.keyIds.map((k) => `"${k}"`).join(', ')}). ` +
          'Keep retired keys listed in PAYLOAD_ENCRYPTION_KEYS while histories encrypted with them exist.',
        keyId,
      );
    }
    const data = payload.data ?? new Uint8Array(0);
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw fail('CODEC_MALFORMED_PAYLOAD', `${data.length} bytes is too short`);
    }
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const ciphertext = data.subarray(IV_BYTES, data.length - TAG_BYTES);
    let plaintext: Buffer;
    try {
      const decipher = createDecipheriv(CIPHER, entry.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      throw fail(
        'CODEC_DECRYPT_FAILED',
        'authentication failed (the ciphertext was altered, or the key configured under that id is not the one that encrypted it)',
      );
    }
    try {
      const decoded = temporal.api.common.v1.Payload.decode(plaintext);
      this.#decryptedWith.add(keyId);
      return decoded;
    } catch {
      throw new PayloadCodecError(
        'CODEC_MALFORMED_PAYLOAD',
        `A payload decrypted with key id "${keyId}" is not a Temporal payload`,
        keyId,
      );
    }
  }
}

/** True when `payload` was produced by an {@link EncryptionCodec}. */
export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
  if (encoding == null) return false;
  return Buffer.from(encoding.buffer, encoding.byteOffset, encoding.byteLength).equals(
    ENCODING_ENCRYPTED_BYTES,
  );
}
