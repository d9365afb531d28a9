/**
 * The content hash that makes upserts idempotent: SHA-256 of the record's canonical JSON (keys
 * sorted at every level), so the supplier reordering keys is not a change.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted recursively; arrays keep their order (it can carry meaning). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
