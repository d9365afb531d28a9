/** The content catalogue: the store, the sync contract, the schedule and the CLI's functions. */
export * from './cli';
export * from './id-ranges';
export * from './schedule';
export * from './sqlite-store';
export { CATALOGUE_SCHEMA_VERSION, type SqliteCatalogueStoreOptions } from './sqlite-writes';
export type * from './store';
export * from './sync-contract';
export * from './sync-messages';
