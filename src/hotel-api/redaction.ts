/**
 * What supplier text must never carry into an error message (rule 9, and logs): our
 * `authorization` header or any part of it (the key, a signature), the secret, and the personal
 * data the request carried (a supplier or a proxy may echo the request in its error: FastAPI's
 * 422 echoes the header it rejected, others the body).
 */

const AUTH_HEADER_PATTERN = /API-Key=[^,\s"']*,\s*Signature=[^,\s"']*(,\s*Timestamp=\d*)?/gi;
const SIGNATURE_PATTERN = /Signature=[0-9a-f]{16,}/gi;
/** A signature alone: our HMAC-SHA256 in hex, 64 characters. */
const BARE_SIGNATURE_PATTERN = /(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/gi;
/** Letters and digits of any script: a personal datum is removed where it is a whole word. */
const WORD = '[\\p{L}\\p{N}]';

/**
 * Removes anything that looks like our `authorization` header or a signature, the given secrets
 * (the API secret and key: wherever they appear) and personal data (where it stands as a whole
 * word, in any case), from text the supplier sent back.
 */
export function redact(
  text: string,
  secrets: readonly string[] = [],
  personal: readonly string[] = [],
): string {
  let out = text.replace(AUTH_HEADER_PATTERN, '[redacted authorization]');
  out = out.replace(SIGNATURE_PATTERN, 'Signature=[redacted]');
  out = out.replace(BARE_SIGNATURE_PATTERN, '[redacted signature]');
  for (const secret of secrets) {
    // Very short secrets would redact random words; config never has them in practice.
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  const words = personal.filter((p) => p.length >= 2);
  if (words.length === 0) return out;
  const alternatives = [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  return out.replace(new RegExp(`(?<!${WORD})(?:${alternatives})(?!${WORD})`, 'giu'), '[redacted]');
}

/**
 * The personal data a request body carries: every string in it (a booking's names, notes, phone,
 * e-mail, custom fields), to be removed from what the supplier answers to it.
 */
export function personalData(body: unknown): string[] {
  const out: string[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (typeof v === 'string') out.push(v.trim());
    else if (depth < 5 && typeof v === 'object' && v !== null)
      for (const item of Object.values(v)) visit(item, depth + 1);
  };
  visit(body, 0);
  return out;
}
