/**
 * `@hotel-booking-orchestrator/client`: what an order system needs to book through the
 * orchestrator, compiled from the product's own modules (nothing here is copied): the booking
 * client and the contract (`src/client/`), the configuration it connects with, and the data
 * converter that makes its payloads readable by the workers (docs/contract.md).
 *
 * `src/codec/failure-converter.ts` is compiled beside it (packages/client/tsconfig.json): the data
 * converter names it by path, and the Temporal client loads it from there.
 */
export * from '../../../src/client';
export { ConfigError, loadConfig, type Config, type LoadConfigOptions } from '../../../src/config';
export { DEV_KEY_ID, developmentKey, parseEncryptionKeys } from '../../../src/config/codec';
export { createDataConverter } from '../../../src/codec/data-converter';
export { EncryptionCodec } from '../../../src/codec/encryption-codec';
export type { EncryptionConfig, EncryptionKey } from '../../../src/codec/types';
