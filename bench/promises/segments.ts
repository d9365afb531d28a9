/**
 * A replay's observations split into activations (pure): each promise and sandbox entry goes to the
 * activation it happened in.
 */
import type { Observed, ObservedCommand, ObservedJob } from './observed';

/** One activation's share of the observations. */
export interface Segment {
  activation: number | undefined;
  historyLength: number | undefined;
  jobs: ObservedJob[];
  commands: ObservedCommand[];
  promises: number;
  entries: number;
  sites: Map<string, number>;
}

const newSegment = (activation: number | undefined): Segment => ({
  activation,
  historyLength: undefined,
  jobs: [],
  commands: [],
  promises: 0,
  entries: 0,
  sites: new Map(),
});

/**
 * Splits the observations into activations. An activation begins with the `activate` entry that
 * follows a `concludeActivation` (a second `activate` before it is the same activation's next batch
 * of jobs); what comes before the first one (creating the workflow: `initRuntime`, `initialize`) and
 * between a conclusion and the next activation belongs to the next one; `dispose` begins the
 * eviction.
 */
export function segmentsOf(observed: readonly Observed[]): Segment[] {
  const segments: Segment[] = [];
  let pending = newSegment(undefined);
  let current: Segment | undefined;
  /** Between an activation's first `activate` and its `concludeActivation`, or in the eviction. */
  let inside = false;
  let activations = 0;
  for (const o of observed) {
    if (o.kind === 'commands') {
      // Noted as `concludeActivation` returns them: the activation just concluded.
      (current ?? pending).commands.push(...o.commands);
      continue;
    }
    if (
      o.kind === 'entry' &&
      o.call === 'activate' &&
      (!inside || current?.activation === undefined)
    ) {
      current = { ...pending, activation: ++activations };
      pending = newSegment(undefined);
      segments.push(current);
      inside = true;
    } else if (o.kind === 'entry' && o.call === 'dispose') {
      current = newSegment(undefined);
      segments.push(current);
      inside = true;
    }
    const s = inside && current ? current : pending;
    if (o.kind === 'entry') {
      s.entries++;
      if (o.activation) {
        s.historyLength ??= o.activation.historyLength;
        s.jobs.push(...o.activation.jobs);
      }
      if (o.call === 'concludeActivation') inside = false;
    } else {
      s.promises++;
      if (o.site !== undefined) s.sites.set(o.site, (s.sites.get(o.site) ?? 0) + 1);
    }
  }
  // What came after the last activation and no eviction took: the last activation's.
  const last = segments[segments.length - 1];
  if (last) {
    last.promises += pending.promises;
    last.entries += pending.entries;
    for (const [site, n] of pending.sites) last.sites.set(site, (last.sites.get(site) ?? 0) + n);
  }
  return segments;
}
