/**
 * The summary node's test runner prints last (spec reporter): `ℹ tests N`, `ℹ pass N`,
 * `ℹ fail N`, `ℹ cancelled N` … `ℹ duration_ms N`. Fed the output as it comes, it says when the
 * summary is complete and what exit code it means.
 */
export class RunSummary {
  private text = '';
  private readonly counts = new Map<string, number>();
  done = false;

  /** Adds output; true once the summary is complete. */
  add(chunk: string): boolean {
    if (this.done) return true;
    this.text = (this.text + chunk).slice(-8_192);
    for (const m of this.text.matchAll(
      /^ℹ (tests|pass|fail|cancelled|duration_ms) (\d+(?:\.\d+)?)$/gm,
    )) {
      this.counts.set(m[1]!, Number(m[2]));
    }
    this.done = this.counts.has('duration_ms') && this.counts.has('fail');
    return this.done;
  }

  /** 0 when nothing failed or was cancelled, else 1. */
  exitCode(): number {
    return (this.counts.get('fail') ?? 1) === 0 && (this.counts.get('cancelled') ?? 0) === 0
      ? 0
      : 1;
  }
}
