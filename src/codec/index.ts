/** Payload encryption: the codec, the data converter built on it, its config, the codec server. */
export {
  DEV_CODEC_TOKEN,
  DEV_KEY_ID,
  developmentKey,
  loadCodecServerConfig,
  loadEncryptionConfig,
  parseEncryptionKeys,
} from '../config/codec';
export type * from './types';
export * from './encryption-codec';
export * from './data-converter';
export * from './codec-server';
