/**
 * Sets of integer ids as sorted, inclusive, non-touching ranges: `[[1001, 1007], [1009, 1200]]`.
 * The sync carries the ids it has seen through workflow history and continue-as-new; supplier
 * ids are mostly contiguous, so a country of 50 000 properties is a few hundred numbers instead
 * of 50 000. Pure: used by the workflow bundle.
 */

/** Sorted, inclusive `[first, last]` pairs; neighbours neither overlap nor touch. */
export type IdRanges = readonly (readonly [number, number])[];

/** The ranges of a list of integers (any order, duplicates allowed). */
export function toRanges(ids: Iterable<number>): IdRanges {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const id of sorted) {
    if (!Number.isSafeInteger(id)) throw new RangeError(`not an integer id: ${id}`);
    const last = out[out.length - 1];
    if (last !== undefined && id === last[1] + 1) last[1] = id;
    else out.push([id, id]);
  }
  return out;
}

export function mergeRanges(a: IdRanges, b: IdRanges): IdRanges {
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [first, last] of all) {
    const prev = out[out.length - 1];
    if (prev !== undefined && first <= prev[1] + 1) prev[1] = Math.max(prev[1], last);
    else out.push([first, last]);
  }
  return out;
}

export function rangesSize(r: IdRanges): number {
  let n = 0;
  for (const [first, last] of r) n += last - first + 1;
  return n;
}

/** Whether `id` is in the ranges (binary search). */
export function rangesHas(r: IdRanges, id: number): boolean {
  let lo = 0;
  let hi = r.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = r[mid]!;
    if (id < first) hi = mid - 1;
    else if (id > last) lo = mid + 1;
    else return true;
  }
  return false;
}

export function* rangeIds(r: IdRanges): Generator<number> {
  for (const [first, last] of r) for (let id = first; id <= last; id++) yield id;
}
