/**
 * The content catalogue: the store (interface and SQLite implementation), the sync contract,
 * the schedule helper and the functions the CLI calls.
 */
export * from './cli';
export * from './id-ranges';
export { ensureContentSchedule } from './schedule';
export type { ContentScheduleOptions, EnsuredSchedule } from './schedule';
export { CATALOGUE_SCHEMA_VERSION, openSqliteCatalogueStore } from './sqlite-store';
export type { SqliteCatalogueStoreOptions } from './sqlite-store';
export type * from './store';
export * from './sync-contract';
export { contentSyncProgressQuery } from './sync-messages';
