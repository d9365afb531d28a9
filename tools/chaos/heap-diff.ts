/**
 * `npx tsx tools/chaos/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [top]`: what grew
 * between two V8 heap snapshots (of the memory probe, tools/chaos/memory-probe.ts), by constructor
 * (DevTools' "constructor" grouping: objects and native objects by name, everything else by its node
 * type: "(string)", "(closure)", "(code)", …): count and self size before and after, sorted by the
 * growth of self size. Reads the snapshot's flat arrays without parsing the whole file as one JSON
 * value (a workflow thread's snapshot can be larger than a JavaScript string may be).
 */
import { readFileSync } from 'node:fs';

export interface ConstructorTotals {
  count: number;
  selfBytes: number;
}

export interface HeapSummary {
  readonly totalBytes: number;
  readonly nodes: number;
  readonly byConstructor: Map<string, ConstructorTotals>;
}

interface SnapshotMeta {
  readonly node_fields: string[];
  readonly node_types: [string[], ...unknown[]];
}

function indexOf(buf: Buffer, marker: string, from = 0): number {
  const at = buf.indexOf(marker, from, 'latin1');
  if (at < 0) throw new Error(`not a V8 heap snapshot: no ${marker}`);
  return at;
}

/** Sums a snapshot by constructor. */
export function summarizeHeapSnapshot(buf: Buffer): HeapSummary {
  const nodesAt = indexOf(buf, '"nodes":[');
  const header = buf.subarray(0, nodesAt).toString('utf8').replace(/,\s*$/, '');
  const meta = (JSON.parse(`${header}}`) as { snapshot: { meta: SnapshotMeta } }).snapshot.meta;
  const stringsAt = buf.lastIndexOf('"strings":[', undefined, 'latin1');
  if (stringsAt < 0) throw new Error('not a V8 heap snapshot: no "strings"');
  const stringsEnd = buf.lastIndexOf(']');
  const strings = JSON.parse(
    buf.subarray(stringsAt + '"strings":'.length, stringsEnd + 1).toString('utf8'),
  ) as string[];

  const fields = meta.node_fields.length;
  const typeField = meta.node_fields.indexOf('type');
  const nameField = meta.node_fields.indexOf('name');
  const sizeField = meta.node_fields.indexOf('self_size');
  const types = meta.node_types[0];

  const byConstructor = new Map<string, ConstructorTotals>();
  let totalBytes = 0;
  let nodes = 0;
  const row: number[] = new Array<number>(fields).fill(0);
  let field = 0;
  let value = 0;
  let inNumber = false;
  for (let i = nodesAt + '"nodes":['.length; i < buf.length; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      inNumber = true;
      continue;
    }
    if (inNumber) {
      row[field++] = value;
      value = 0;
      inNumber = false;
      if (field === fields) {
        field = 0;
        nodes += 1;
        const type = types[row[typeField]!] ?? '?';
        const key =
          type === 'object' || type === 'native' ? (strings[row[nameField]!] ?? '?') : `(${type})`;
        const size = row[sizeField]!;
        totalBytes += size;
        const t = byConstructor.get(key);
        if (t) {
          t.count += 1;
          t.selfBytes += size;
        } else byConstructor.set(key, { count: 1, selfBytes: size });
      }
    }
    if (c === 93) break; // ']'
  }
  return { totalBytes, nodes, byConstructor };
}

export interface ConstructorGrowth {
  readonly name: string;
  readonly countBefore: number;
  readonly countAfter: number;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

/** Constructors sorted by self-size growth, largest first. */
export function diffHeapSummaries(before: HeapSummary, after: HeapSummary): ConstructorGrowth[] {
  const names = new Set([...before.byConstructor.keys(), ...after.byConstructor.keys()]);
  return [...names]
    .map((name) => {
      const b = before.byConstructor.get(name);
      const a = after.byConstructor.get(name);
      return {
        name,
        countBefore: b?.count ?? 0,
        countAfter: a?.count ?? 0,
        bytesBefore: b?.selfBytes ?? 0,
        bytesAfter: a?.selfBytes ?? 0,
      };
    })
    .sort((x, y) => y.bytesAfter - y.bytesBefore - (x.bytesAfter - x.bytesBefore));
}

function main(argv: string[]): number {
  const [beforePath, afterPath, topRaw] = argv;
  if (!beforePath || !afterPath) {
    console.error(
      'usage: npx tsx tools/chaos/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [top]',
    );
    return 2;
  }
  const top = Number(topRaw ?? 25);
  const before = summarizeHeapSnapshot(readFileSync(beforePath));
  const after = summarizeHeapSnapshot(readFileSync(afterPath));
  const kib = (b: number) => (b / 1024).toFixed(0);
  console.log(
    `total self size ${kib(before.totalBytes)} → ${kib(after.totalBytes)} KiB (${before.nodes} → ${after.nodes} nodes)`,
  );
  console.log('constructor | count before → after | self KiB before → after | Δ KiB');
  const rows = diffHeapSummaries(before, after);
  for (const r of rows.slice(0, top)) {
    console.log(
      `${r.name.slice(0, 60)} | ${r.countBefore} → ${r.countAfter} | ${kib(r.bytesBefore)} → ${kib(r.bytesAfter)} | ${kib(r.bytesAfter - r.bytesBefore)}`,
    );
  }
  const shrunk = rows.slice(-5).filter((r) => r.bytesAfter < r.bytesBefore);
  if (shrunk.length > 0) console.log('largest shrinks:');
  for (const r of shrunk.reverse()) {
    console.log(
      `${r.name.slice(0, 60)} | ${r.countBefore} → ${r.countAfter} | ${kib(r.bytesBefore)} → ${kib(r.bytesAfter)} | ${kib(r.bytesAfter - r.bytesBefore)}`,
    );
  }
  return 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
