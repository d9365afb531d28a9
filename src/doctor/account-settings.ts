/** Where each of an account's settings is set, for the doctor's advice. Pure. */
import { DEFAULT_SUPPLIER_ACCOUNT } from '../shared/supplier-accounts';

export interface AccountSettings {
  /** The key and secret, as a sentence names them. */
  readonly credentials: string;
  /** The same, short, for "signed with …". */
  readonly signedWith: string;
  readonly baseUrl: string;
  readonly timeouts: { readonly booking: string; readonly read: string; readonly search: string };
  /** Where the timeouts named in `latency` are raised. */
  readonly raiseTimeout: string;
  readonly maxCallsPerSecond: string;
}

/** The default account's: the `HOTEL_API_*` variables. */
export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = {
  credentials: 'HOTEL_API_KEY and HOTEL_API_SECRET (or their _FILE forms)',
  signedWith: 'HOTEL_API_KEY/SECRET',
  baseUrl: 'HOTEL_API_BASE_URL',
  timeouts: {
    booking: 'HOTEL_API_BOOKING_TIMEOUT_MS',
    read: 'HOTEL_API_READ_TIMEOUT_MS',
    search: 'HOTEL_API_SEARCH_TIMEOUT_MS',
  },
  raiseTimeout: 'Raise the HOTEL_API_*_TIMEOUT_MS variable named above',
  maxCallsPerSecond: 'SUPPLIER_MAX_CALLS_PER_SECOND',
};

/** The settings of account `id`: the variables for `default`, else its `SUPPLIER_ACCOUNTS` fields. */
export function accountSettings(id: string): AccountSettings {
  if (id === DEFAULT_SUPPLIER_ACCOUNT) return DEFAULT_ACCOUNT_SETTINGS;
  const field = (name: string) => `SUPPLIER_ACCOUNTS "${id}" ${name}`;
  return {
    credentials: `${field('key')} and secret (or keyFile and secretFile)`,
    signedWith: `account "${id}"'s key and secret`,
    baseUrl: field('baseUrl'),
    timeouts: {
      booking: field('bookingTimeoutMs'),
      read: field('readTimeoutMs'),
      search: field('searchTimeoutMs'),
    },
    raiseTimeout: `Raise the SUPPLIER_ACCOUNTS "${id}" timeout field named above`,
    maxCallsPerSecond: field('maxCallsPerSecond'),
  };
}
