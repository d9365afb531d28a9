/** The public API of the supplier client. Temporal-free: never import @temporalio/* here. */
export * from './availability';
export * from './booking';
export * from './cancel';
export * from './classify';
export * from './client';
export * from './content';
export type * from './endpoint';
export * from './errors';
export * from './price-check';
export * from './raw-request';
export { personalData, redact } from './redaction';
export * from './retrieve';
export * from './signing';
export * from './static-content';
export * from './validation';
