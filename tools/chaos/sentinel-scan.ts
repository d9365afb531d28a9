/**
 * Looks for sentinel strings (fake guest names, a fake API secret) in bytes that must not hold
 * them: Temporal's SQLite files, worker logs, histories. A sentinel counts as found in clear when
 * it appears as is, in any letter case, as UTF-16, or inside base64 text (protobuf JSON and the
 * codec server carry payloads as base64) at any of the three byte alignments, standard or URL-safe.
 */
import { existsSync, readFileSync } from 'node:fs';

/** How a sentinel was found. */
export type SentinelEncoding = 'exact' | 'case-insensitive' | 'utf16le' | 'base64' | 'base64url';

export interface SentinelHit {
  readonly sentinel: string;
  readonly encoding: SentinelEncoding;
  /** Where: a file name or a label given by the caller. */
  readonly where: string;
  /** Byte offset of the first hit. */
  readonly offset: number;
  /** A few bytes around the hit, printable characters only (for the failure message). */
  readonly context: string;
}

/**
 * The base64 text that appears inside any base64 encoding of a byte string containing `bytes`,
 * for each of the three alignments: the characters that depend only on `bytes`.
 */
export function base64Fragments(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const text = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    const first = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * (k + bytes.length)) / 6);
    if (end - first >= 4) out.push(text.slice(first, end));
  }
  return out;
}

function printable(buf: Buffer): string {
  return buf.toString('latin1').replace(/[^\x20-\x7e]/g, '.');
}

/**
 * Every hit of every sentinel in `haystack` (one per sentinel and encoding: the first).
 * Sentinels shorter than 6 characters are refused: they would match by chance.
 */
export function findSentinels(
  haystack: Buffer,
  sentinels: readonly string[],
  where = '(buffer)',
): SentinelHit[] {
  const hits: SentinelHit[] = [];
  let lower: string | undefined;
  const hit = (sentinel: string, encoding: SentinelEncoding, offset: number, length: number) =>
    hits.push({
      sentinel,
      encoding,
      where,
      offset,
      context: printable(
        haystack.subarray(
          Math.max(0, offset - 40),
          Math.min(haystack.length, offset + length + 40),
        ),
      ),
    });
  for (const sentinel of sentinels) {
    if (sentinel.length < 6) throw new RangeError(`sentinel "${sentinel}" is too short`);
    const bytes = Buffer.from(sentinel, 'utf8');
    let at = haystack.indexOf(bytes);
    if (at >= 0) {
      hit(sentinel, 'exact', at, bytes.length);
      continue;
    }
    lower ??= haystack.toString('latin1').toLowerCase();
    at = lower.indexOf(Buffer.from(sentinel.toLowerCase(), 'utf8').toString('latin1'));
    if (at >= 0) hit(sentinel, 'case-insensitive', at, bytes.length);
    const utf16 = Buffer.from(sentinel, 'utf16le');
    at = haystack.indexOf(utf16);
    if (at >= 0) hit(sentinel, 'utf16le', at, utf16.length);
    for (const fragment of base64Fragments(bytes)) {
      at = haystack.indexOf(fragment, 0, 'latin1');
      if (at >= 0) {
        hit(sentinel, 'base64', at, fragment.length);
        break;
      }
      const url = fragment.replaceAll('+', '-').replaceAll('/', '_');
      if (url !== fragment) {
        at = haystack.indexOf(url, 0, 'latin1');
        if (at >= 0) {
          hit(sentinel, 'base64url', at, url.length);
          break;
        }
      }
    }
  }
  return hits;
}

/** {@link findSentinels} over files (missing files are skipped and listed). */
export function scanFiles(
  paths: readonly string[],
  sentinels: readonly string[],
): { hits: SentinelHit[]; scannedBytes: number; scanned: string[]; missing: string[] } {
  const hits: SentinelHit[] = [];
  const scanned: string[] = [];
  const missing: string[] = [];
  let scannedBytes = 0;
  for (const path of paths) {
    if (!existsSync(path)) {
      missing.push(path);
      continue;
    }
    const bytes = readFileSync(path);
    scannedBytes += bytes.length;
    scanned.push(path);
    hits.push(...findSentinels(bytes, sentinels, path));
  }
  return { hits, scannedBytes, scanned, missing };
}

/** A hit as one line for a report or an assertion message. */
export function formatHit(h: SentinelHit): string {
  return `${h.where}: "${h.sentinel}" as ${h.encoding} at byte ${h.offset}: …${h.context}…`;
}
