/** What a run prints: the machine it ran on, and its figures as a table beside their targets. */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { accountsFigures } from '../accounts/result';
import { clusterFigures } from '../cluster/figures';
import { round } from '../shared/stats';
import { reported, targets, type BenchResults } from './targets';

/** The machine: CPU model, cores, memory, Node, and the load average as the run starts. */
export function machine() {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1]) cpuModel = m[1].trim();
  } catch {
    // Not Linux: os.cpus() it is.
  }
  return {
    cpu: cpuModel,
    cores: cpus().length,
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    loadAverageAtStart: loadavg().map((l) => round(l)),
  };
}

/** The rows of the parts that have no target and no `reported` name: printed only. */
function printedRows(r: BenchResults): string[][] {
  const rows: string[][] = [];
  for (const [k, v] of Object.entries(r.overhead ?? {}))
    rows.push([`overhead R p99 ${k}`, String(v.p99)]);
  if (r.throughput) {
    rows.push(['control workflows/s', String(r.throughput.controlWorkflowsPerSecond)]);
  }
  if (r.accounts) rows.push(...Object.entries(accountsFigures(r.accounts)));
  if (r.scale) rows.push(['scale open workflows', String(r.scale.openWorkflows)]);
  if (r.ahead) {
    const a = r.ahead;
    rows.push([
      `ahead: ${a.population} polls due, first call p50 / max ms`,
      `${a.priority.firstCallP50Ms} / ${a.priority.firstCallMaxMs}`,
    ]);
    rows.push([
      'ahead baseline (no priority) p99 / p50 / max ms',
      `${a.baseline.firstCallP99Ms} / ${a.baseline.firstCallP50Ms} / ${a.baseline.firstCallMaxMs}`,
    ]);
  }
  if (r.client) {
    rows.push(['client signed calls/s', String(round(r.client.signedCallsPerSecond))]);
    rows.push(['client bare calls/s', String(round(r.client.bareCallsPerSecond))]);
    rows.push(['client CPU µs/call', String(round(r.client.cpuMicrosPerCall, 1))]);
  }
  if (r.simulator) {
    rows.push(['simulator req/s', String(round(r.simulator.requestsPerSecond))]);
    rows.push(['bare server req/s', String(round(r.simulator.bareRequestsPerSecond))]);
  }
  if (r.cluster) rows.push(...Object.entries(clusterFigures(r.cluster)));
  return rows;
}

/** Every figure of the run: the targets' rows, then the reported ones, then the printed ones. */
export function printTable(r: BenchResults): void {
  const rows: string[][] = [['figure', 'value', 'target', '']];
  for (const t of targets(r)) {
    if (t.value === undefined) continue;
    rows.push([t.label, String(t.value), t.target, t.holds(t.value) ? 'holds' : 'MISSES']);
  }
  for (const [label, value] of Object.entries(reported(r)))
    rows.push([label, String(value), '', '']);
  for (const [label, value] of printedRows(r)) rows.push([label ?? '', value ?? '', '', '']);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  for (const row of rows) console.log(row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  '));
}
