/** Token buckets per company: the simulator's stand-in for the supplier's (unspecified) rate limit. */
import type { RateLimitOption } from './faults';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /**
   * Takes one token from `company`'s bucket. Returns 0 when allowed, otherwise the whole
   * seconds to wait (at least 1), for the `Retry-After` header.
   */
  take(company: string, limit: RateLimitOption, nowMs: number): number {
    const capacity = limit.burst ?? limit.perSecond;
    let bucket = this.buckets.get(company);
    if (bucket === undefined) {
      bucket = { tokens: capacity, updatedMs: nowMs };
      this.buckets.set(company, bucket);
    }
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * limit.perSecond);
    bucket.updatedMs = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
  }

  /** Drops one company's bucket: its next request starts with a full one. */
  forget(company: string): void {
    this.buckets.delete(company);
  }

  /** Drops every bucket, or every one but those of `keep`. */
  reset(keep?: (company: string) => boolean): void {
    if (keep === undefined) this.buckets.clear();
    else for (const company of [...this.buckets.keys()]) if (!keep(company)) this.forget(company);
  }
}
