/**
 * Company accounts and the HMAC check of the `authorization` header, using the project's
 * signing module (constant-time comparison, 5-minute window).
 */
import {
  SIGNATURE_TOLERANCE_SECONDS,
  parseAuthorization,
  verifySignature,
} from '../../src/hotel-api/signing';

/** A company account the simulator accepts. */
export interface CompanyAccount {
  readonly key: string;
  readonly secret: string;
  /** An inactive account authenticates but is answered 403. */
  readonly active: boolean;
}

/** Why a request was not authenticated (counted by inspection). */
export type AuthFailure = 'malformed' | 'unknown-key' | 'bad-signature' | 'expired' | 'inactive';

export type AuthResult =
  | { readonly ok: true; readonly company: CompanyAccount }
  | { readonly ok: false; readonly reason: AuthFailure };

interface CacheEntry {
  readonly company: CompanyAccount;
  readonly timestamp: number;
}

/** Cached verifications kept before the cache is dropped wholesale (a header lives ~1 s). */
const CACHE_LIMIT = 10_000;

export class Authenticator {
  private readonly companies = new Map<string, CompanyAccount>();
  /**
   * Headers whose signature verified, by the exact header text. A client signs once per second
   * per key, so the hot path mostly skips the HMAC. Entries point at the account object they
   * were verified against: replacing or revoking an account makes them stale at once.
   */
  private readonly verified = new Map<string, CacheEntry>();

  constructor(companies: readonly CompanyAccount[]) {
    this.replaceAll(companies);
  }

  replaceAll(companies: readonly CompanyAccount[]): void {
    this.companies.clear();
    this.verified.clear();
    for (const c of companies) this.companies.set(c.key, { ...c });
  }

  /** Adds an account or changes its secret or active flag. */
  upsert(change: { key: string; secret?: string; active?: boolean }): CompanyAccount {
    const current = this.companies.get(change.key);
    const secret = change.secret ?? current?.secret;
    if (secret === undefined) throw new RangeError(`a new company (${change.key}) needs a secret`);
    const next: CompanyAccount = {
      key: change.key,
      secret,
      active: change.active ?? current?.active ?? true,
    };
    this.companies.set(next.key, next);
    return next;
  }

  /** Removes an account; its keys fail with 401 from now on. */
  revoke(key: string): boolean {
    return this.companies.delete(key);
  }

  list(): CompanyAccount[] {
    return [...this.companies.values()];
  }

  authenticate(header: string, nowMs: number): AuthResult {
    const nowSeconds = Math.floor(nowMs / 1000);
    const cached = this.verified.get(header);
    if (cached !== undefined && this.companies.get(cached.company.key) === cached.company) {
      if (Math.abs(nowSeconds - cached.timestamp) > SIGNATURE_TOLERANCE_SECONDS) {
        return { ok: false, reason: 'expired' };
      }
      return cached.company.active
        ? { ok: true, company: cached.company }
        : { ok: false, reason: 'inactive' };
    }
    const parsed = parseAuthorization(header);
    if (parsed === undefined) return { ok: false, reason: 'malformed' };
    const company = this.companies.get(parsed.key);
    if (company === undefined) return { ok: false, reason: 'unknown-key' };
    const verdict = verifySignature(parsed, company.secret, nowMs);
    if (verdict === 'bad-signature') return { ok: false, reason: 'bad-signature' };
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(header, { company, timestamp: parsed.timestamp });
    if (verdict === 'expired') return { ok: false, reason: 'expired' };
    return company.active ? { ok: true, company } : { ok: false, reason: 'inactive' };
  }
}
