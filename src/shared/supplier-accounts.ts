/**
 * Supplier accounts as the contract and every layer name them: an order's `supplier` is an
 * account's id (src/config/accounts.ts names each account); absent, the default account, which
 * the single-account variables (`HOTEL_API_*`) configure. Pure: workflows import it.
 */

/** The id of the account the `HOTEL_API_*` variables configure, and of an order that names none. */
export const DEFAULT_SUPPLIER_ACCOUNT = 'default';

/** An account id: lower-case letters, digits and `-`, a letter first, at most 32 characters. */
export const SUPPLIER_ACCOUNT_ID = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * The content catalogue file of an account: `CATALOGUE_DB_PATH` itself for the default account,
 * the same name with `-<account>` before its extension for another (`catalogue.sqlite` →
 * `catalogue-eu.sqlite`): each account's content is its own (another supplier's property ids).
 */
export function catalogueDbPathFor(path: string, account: string | undefined): string {
  if (account === undefined || account === DEFAULT_SUPPLIER_ACCOUNT) return path;
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  const dot = path.lastIndexOf('.');
  return dot > slash + 1
    ? `${path.slice(0, dot)}-${account}${path.slice(dot)}`
    : `${path}-${account}`;
}

/** The failure code of a new order whose account is disabled (nothing was sent). */
export const SUPPLIER_ACCOUNT_DISABLED = 'SUPPLIER_ACCOUNT_DISABLED';

/** The account of an order, whether its input named one or not. */
export function accountOf(supplier: string | undefined): string {
  return supplier ?? DEFAULT_SUPPLIER_ACCOUNT;
}

/**
 * The task queue of an account's activities: the booking task queue itself for the default
 * account (today's deployments unchanged), a queue of its own for every other account, so its
 * slots, rate cap and retries are its own (docs/supplier-accounts.md).
 */
export function supplierTaskQueue(bookingTaskQueue: string, account: string): string {
  return account === DEFAULT_SUPPLIER_ACCOUNT
    ? bookingTaskQueue
    : `${bookingTaskQueue}-supplier-${account}`;
}
