/** Payload encryption: the codec, the data converter built on it, its config, the codec server. */
export {
  DEV_CODEC_TOKEN,
  DEV_KEY_ID,
  developmentKey,
  loadCodecServerConfig,
  loadEncryptionConfig,
  parseEncryptionKeys,
} from '../config/codec';
export type { CodecServerConfig, EncryptionConfig, EncryptionKey } from './types';
export {
  ENCODING_ENCRYPTED,
  EncryptionCodec,
  isEncrypted,
  METADATA_KEY_ID,
  PayloadCodecError,
  PayloadCodecErrorCode,
} from './encryption-codec';
export {
  createDataConverter,
  FAILURE_CONVERTER_PATH,
  workflowBundleConverterOptions,
} from './data-converter';
export {
  buildCodecServer,
  CORS_ALLOWED_HEADERS,
  type CodecServer,
  type CodecServerOptions,
} from './codec-server';
