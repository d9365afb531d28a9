/**
 * A fuzz campaign's shape: each surface takes generated hostile inputs from a seed and counts, per
 * input, what went wrong. Every count but `inputs` is a defect; `null` where the surface has no
 * such failure (a configuration cannot leave a workflow stuck).
 */

/** What a surface's inputs did. */
export interface Tally {
  readonly surface: string;
  inputs: number;
  /** The process under test died, or threw where it must answer (an uncaught error). */
  crashes: number;
  /** Workflow tasks that failed (each one loops until fixed). */
  taskFailures: number | null;
  /** Inputs with no answer within the surface's deadline. */
  stuck: number;
  /** Bookings lost or duplicated. */
  lost: number | null;
  duplicated: number | null;
  /** A secret or personal datum in an answer, an error, a log line or a metric label. */
  leaks: number;
  /** An answer the docs do not give for it: an undocumented status, an error naming no field. */
  unclear: number;
  /** The first few defects, each with the input that made it (seeded: it comes again). */
  readonly examples: string[];
}

export interface CampaignOptions {
  readonly seed: number;
  /** Inputs per surface at most. */
  readonly count: number;
  /** When the surface stops taking new inputs (epoch ms). */
  readonly until: number;
}

export interface Surface {
  readonly name: string;
  run(options: CampaignOptions): Promise<Tally>;
}

export function tally(surface: string, kinds: { workflows?: boolean; bookings?: boolean }): Tally {
  return {
    surface,
    inputs: 0,
    crashes: 0,
    taskFailures: kinds.workflows ? 0 : null,
    stuck: 0,
    lost: kinds.bookings ? 0 : null,
    duplicated: kinds.bookings ? 0 : null,
    leaks: 0,
    unclear: 0,
    examples: [],
  };
}

type Defect = 'crashes' | 'taskFailures' | 'stuck' | 'lost' | 'duplicated' | 'leaks' | 'unclear';

/** Counts one defect of `input`, keeping the first examples. */
export function defect(t: Tally, kind: Defect, input: string, what: string): void {
  (t[kind] as number) += 1;
  if (t.examples.length < Number(process.env.FUZZ_EXAMPLES ?? 5))
    t.examples.push(`${kind}: ${what} — input ${input.slice(0, 300)}`);
}

export const defects = (t: Tally): number =>
  t.crashes +
  (t.taskFailures ?? 0) +
  t.stuck +
  (t.lost ?? 0) +
  (t.duplicated ?? 0) +
  t.leaks +
  t.unclear;

/** The figure: one row a surface. */
export function figure(tallies: readonly Tally[]): string {
  const cell = (v: number | null) => (v === null ? 'n/a' : String(v));
  const head =
    '| surface | inputs | crashes | workflow task failures | stuck | lost | duplicated | leaks | unclear |';
  const rows = tallies.map(
    (t) =>
      `| ${t.surface} | ${t.inputs} | ${t.crashes} | ${cell(t.taskFailures)} | ${t.stuck} | ${cell(t.lost)} | ${cell(t.duplicated)} | ${t.leaks} | ${t.unclear} |`,
  );
  return [head, '| --- | --- | --- | --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** Hostile text: every Unicode plane, control characters, edge numbers as text, a megabyte. */
export const HOSTILE_TEXT = [
  '',
  ' ',
  '\u0000',
  '-0',
  '1e308',
  '-1e308',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  '{}',
  '[]',
  '0x10',
  '9007199254740993',
  '-1',
  '"quoted"',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00%2e%2e',
  '\uFEFFbom',
  '\uD800',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🏨',
  'ﾃｽﾄ',
  'x'.repeat(1024 * 1024),
] as const;
