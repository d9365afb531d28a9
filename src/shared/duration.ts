/** Durations as the contract writes them: `'500ms'`, `'30s'`, `'15m'`, `'48h'`, `'7d'`, or ms. */
export type DurationInput = string | number;

/** Milliseconds per unit of the duration syntax. */
export const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const DURATION_RE = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/** Milliseconds of a duration, or `undefined` when it is not one (pure: usable in workflows). */
export function durationToMs(value: DurationInput): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const m = DURATION_RE.exec(value.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNIT_MS[m[2]!]!);
}
