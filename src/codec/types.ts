/** What the codec works with: payload keys, the codec server's settings (src/config/codec.ts). */
import type { KeyObject } from 'node:crypto';

export interface EncryptionKey {
  /** Written in clear into every payload's metadata (`encryption-key-id`): not a secret. */
  readonly id: string;
  /** The 32-byte AES-256-GCM key. */
  readonly key: KeyObject;
}

export interface EncryptionConfig {
  /** Non-empty. The first key encrypts; every listed key decrypts. */
  readonly keys: readonly [EncryptionKey, ...EncryptionKey[]];
  /** True when the keys are the built-in development key (nothing was configured). */
  readonly development: boolean;
}

export interface CodecServerConfig {
  /** The bearer token clients (Temporal UI with an access token, `temporal --codec-auth`) send. */
  readonly token: string;
  /** @default 8888 (env `CODEC_SERVER_PORT`) */
  readonly port: number;
  /**
   * Browser origins allowed to call the server (CORS), e.g. the Temporal UI. Empty: no CORS at all.
   * @default ['http://localhost:8233'] (env `CODEC_CORS_ORIGIN`, comma-separated)
   */
  readonly corsOrigins: readonly string[];
  /** True when {@link token} is the built-in development token. */
  readonly developmentToken: boolean;
}
