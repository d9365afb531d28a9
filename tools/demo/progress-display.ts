/**
 * The demo's live progress: one line per order with its phase path, redrawn in place on a
 * terminal; on anything else (a pipe, a CI log, a test) one plain line per change, so nothing is
 * lost and no escape codes leak into logs.
 */
import { formatDuration } from '../../src/cli/render';

export interface ProgressRow {
  readonly orderId: string;
  readonly scenario: string;
}

interface RowState {
  readonly row: ProgressRow;
  readonly phases: string[];
  note: string | undefined;
  done: boolean;
  startedAt: number;
  endedAt: number | undefined;
}

export interface ProgressDisplayOptions {
  readonly write: (text: string) => void;
  /** Redraw in place (a terminal) or append a line per change. */
  readonly live: boolean;
  /** @default 100 */
  readonly redrawMs?: number;
  /** Terminal width; longer lines are cut so a redraw never wraps. @default 160 */
  readonly columns?: number;
}

/** ANSI: cursor up `n` lines; clear the line. */
const up = (n: number) => (n > 0 ? `\x1b[${n}A` : '');
const CLEAR_LINE = '\x1b[2K';

export class ProgressDisplay {
  readonly #o: ProgressDisplayOptions;
  readonly #rows = new Map<string, RowState>();
  readonly #t0 = Date.now();
  #drawnLines = 0;
  #timer: NodeJS.Timeout | undefined;
  #dirty = false;

  constructor(options: ProgressDisplayOptions) {
    this.#o = options;
  }

  add(row: ProgressRow): void {
    this.#rows.set(row.orderId, {
      row,
      phases: [],
      note: undefined,
      done: false,
      startedAt: Date.now(),
      endedAt: undefined,
    });
    // Shown from its first phase on: in line mode, columns are only aligned once all are added.
    this.#dirty = true;
  }

  /** A new phase of an order (repeats are ignored). */
  phase(orderId: string, phase: string): void {
    const r = this.#rows.get(orderId);
    if (!r || r.phases.at(-1) === phase) return;
    r.phases.push(phase);
    this.#changed(orderId, phase);
  }

  /** What the demo itself is doing for an order (approving, resolving, cancelling). */
  note(orderId: string, note: string): void {
    const r = this.#rows.get(orderId);
    if (!r) return;
    r.note = note;
    this.#changed(orderId, note);
  }

  done(orderId: string, ok: boolean): void {
    const r = this.#rows.get(orderId);
    if (!r) return;
    r.done = true;
    r.endedAt = Date.now();
    r.note = ok ? 'done ✓' : 'UNEXPECTED ✗';
    this.#changed(orderId, r.note);
  }

  start(): void {
    if (!this.#o.live) return;
    this.#timer = setInterval(() => {
      if (this.#dirty) this.#draw();
    }, this.#o.redrawMs ?? 100);
  }

  /** Draws the final state once more and stops redrawing. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#o.live) this.#draw();
  }

  #changed(orderId: string, what: string): void {
    if (this.#o.live) {
      this.#dirty = true;
      return;
    }
    const r = this.#rows.get(orderId)!;
    const at = formatDuration(Date.now() - this.#t0).padStart(8);
    this.#o.write(
      `[${at}] ${orderId.padEnd(this.#orderWidth())}  ${r.row.scenario.padEnd(this.#scenarioWidth())}  ${what}\n`,
    );
  }

  #orderWidth(): number {
    return Math.max(5, ...[...this.#rows.keys()].map((k) => k.length));
  }

  #scenarioWidth(): number {
    return Math.max(8, ...[...this.#rows.values()].map((r) => r.row.scenario.length));
  }

  #draw(): void {
    this.#dirty = false;
    const ow = this.#orderWidth();
    const sw = this.#scenarioWidth();
    const lines = [...this.#rows.values()].map((r) => {
      const elapsed = formatDuration((r.endedAt ?? Date.now()) - r.startedAt);
      const path = r.phases.join(' → ') || '…';
      const spinner = r.done ? ' ' : '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[Math.floor(Date.now() / 100) % 10];
      return `${spinner} ${r.row.orderId.padEnd(ow)}  ${r.row.scenario.padEnd(sw)}  ${elapsed.padStart(7)}  ${path}${r.note ? `  (${r.note})` : ''}`;
    });
    const width = this.#o.columns ?? 160;
    const text = lines.map(
      (l) => `${CLEAR_LINE}${l.length > width - 1 ? `${l.slice(0, width - 2)}…` : l}`,
    );
    this.#o.write(`${up(this.#drawnLines)}\r${text.join('\n')}\n`);
    this.#drawnLines = lines.length;
    // Keep the spinner and the clocks moving while anything runs.
    if ([...this.#rows.values()].some((r) => !r.done)) this.#dirty = true;
  }
}
