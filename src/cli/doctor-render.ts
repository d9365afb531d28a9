/** The doctors' reports for people: a row per check, what did not run, a summary; no colours. */
import Table from 'cli-table3';
import type { CheckResult } from '../doctor/check-result';
import type { AccountReport, DoctorRunReport } from '../doctor/run-accounts';
import type { DoctorReport } from '../doctor/run-doctor';
import type { NamespaceDoctorReport } from '../doctor/run-namespace-doctor';

/** Widths of the check, verdict, evidence and breaks columns (text wraps inside them). */
const COLUMN_WIDTHS = [20, 9, 64, 44];
/** `doctor namespace`'s: its check names are longer. */
const NAMESPACE_COLUMN_WIDTHS = [22, 9, 62, 44];

const EXIT_MEANING = {
  0: 'nothing found that would break bookings',
  1: 'something would break bookings (see the fail rows)',
  2: 'the supplier could not be checked (unreachable or refused our credentials)',
} as const;

const RUN_EXIT_MEANING = {
  0: 'nothing found that would break bookings on any account',
  1: 'something would break bookings on an account (see its fail rows)',
  2: 'an account could not be checked (unreachable or refused our credentials)',
} as const;

/** The loud line for a booking the doctor could not see cancelled, or `undefined`. */
export function leftBehindLine(
  report: DoctorReport & { readonly id?: string },
): string | undefined {
  const l = report.leftBehind;
  if (l === undefined) return undefined;
  const which = l.bookingId === undefined ? 'a booking may exist' : `booking ${l.bookingId}`;
  const account = report.id === undefined ? '' : ` (account "${report.id}")`;
  return `!!! TEST BOOKING LEFT BEHIND at ${report.supplier}${account}: ${which} (order ${l.orderId}, guest "Test Doctor-Do-Not-Honour"): ${l.reason}. Cancel it with the supplier.`;
}

/** The checks as a table: one row per check, the failures' and warnings' consequences. */
function checksTable(checks: readonly CheckResult[], colWidths = COLUMN_WIDTHS): string {
  const t = new Table({
    head: ['check', 'verdict', 'what was seen', 'what breaks'],
    colWidths,
    wordWrap: true,
    style: { head: [], border: [], compact: true },
  });
  for (const c of checks) {
    const evidence = [c.evidence, ...(c.info ?? []).map((i) => `(info) ${i}`)].join('\n');
    const breaks = c.verdict === 'ok' ? '' : (c.breaks ?? '');
    t.push([c.name, c.verdict.toUpperCase(), evidence, breaks]);
  }
  return t.toString();
}

/** A report's section: heading, checks, what did not run, why it stopped, and its summary. */
function section(
  heading: string,
  report: Pick<DoctorReport, 'checks' | 'skipped' | 'stop'>,
  o: { widths?: number[]; stopped: (kind: string) => string; summary: (counts: string) => string },
): string[] {
  const lines = [heading, checksTable(report.checks, o.widths)];
  if (report.skipped.length > 0) {
    lines.push('Not run:', ...report.skipped.map((s) => `  ${s.name}: ${s.reason}`));
  }
  if (report.stop !== undefined) {
    lines.push(`Stopped after ${report.stop.check}: ${o.stopped(report.stop.kind)}.`);
  }
  const count = (v: string) => report.checks.filter((c) => c.verdict === v).length;
  const n = report.skipped.length;
  lines.push(
    o.summary(`${count('ok')} ok, ${count('warn')} warn, ${count('fail')} fail, ${n} not run`),
  );
  return lines;
}

/** One account's section, headed by its id, its supplier, and whether it takes new orders. */
export function renderAccountReport(report: AccountReport): string {
  const state = report.enabled
    ? 'enabled'
    : 'disabled: takes no new orders; its running orders still call it';
  const heading = `Supplier account "${report.id}" at ${report.supplier} (${state})`;
  const lines = section(heading, report, {
    stopped: (kind) => `the supplier is ${kind}`,
    summary: (counts) =>
      `Account "${report.id}": ${counts}: exit ${report.exitCode}, ${EXIT_MEANING[report.exitCode]}.`,
  });
  const loud = leftBehindLine(report);
  if (loud !== undefined) lines.push(loud);
  return lines.join('\n');
}

/** Every account's section; with several, a last line for the run (its exit code the worst). */
export function renderDoctorRun(run: DoctorRunReport): string {
  const sections = run.accounts.map(renderAccountReport);
  if (run.accounts.length > 1) {
    const each = run.accounts.map((a) => `"${a.id}" exit ${a.exitCode}`).join(', ');
    sections.push(
      `${run.accounts.length} accounts checked (${each}): exit ${run.exitCode}, ${RUN_EXIT_MEANING[run.exitCode]}.`,
    );
  }
  return sections.join('\n\n');
}

const NAMESPACE_EXIT_MEANING = {
  ...EXIT_MEANING,
  2: 'the namespace could not be checked (Temporal unreachable or refused this identity)',
} as const;

/** `doctor namespace`: the same table, headed by the namespace and task queue checked. */
export function renderNamespaceReport(r: NamespaceDoctorReport): string {
  const heading = `Namespace '${r.namespace}' at ${r.temporal}, task queue '${r.taskQueue}'`;
  return section(heading, r, {
    widths: NAMESPACE_COLUMN_WIDTHS,
    stopped: (kind) => `Temporal is ${kind} from here`,
    summary: (counts) => `${counts}: exit ${r.exitCode}, ${NAMESPACE_EXIT_MEANING[r.exitCode]}.`,
  }).join('\n');
}
