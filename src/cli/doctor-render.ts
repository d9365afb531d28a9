/**
 * The doctor's reports for people (the supplier's and `doctor namespace`): one row per check
 * (verdict, what was seen, what breaks), the checks that did not run, a summary with the exit
 * code's meaning, and a loud line for a test booking left behind. The supplier's has one such
 * section per account checked, headed by the account, and a last line for the run when there
 * are several. Plain text, no colours.
 */
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

function counts(report: {
  readonly checks: readonly CheckResult[];
  readonly skipped: readonly unknown[];
}): string {
  const count = (v: string) => report.checks.filter((c) => c.verdict === v).length;
  return `${count('ok')} ok, ${count('warn')} warn, ${count('fail')} fail, ${report.skipped.length} not run`;
}

/** An account's heading: its id, its supplier, and whether it takes new orders. */
function accountHeading(report: AccountReport): string {
  const state = report.enabled
    ? 'enabled'
    : 'disabled: takes no new orders; its running orders still call it';
  return `Supplier account "${report.id}" at ${report.supplier} (${state})`;
}

/** One account's section: heading, checks, what did not run, its summary. */
export function renderAccountReport(report: AccountReport): string {
  const lines = [accountHeading(report), checksTable(report.checks)];
  if (report.skipped.length > 0) {
    lines.push('Not run:', ...report.skipped.map((s) => `  ${s.name}: ${s.reason}`));
  }
  if (report.stop !== undefined) {
    lines.push(`Stopped after ${report.stop.check}: the supplier is ${report.stop.kind}.`);
  }
  lines.push(
    `Account "${report.id}": ${counts(report)}: exit ${report.exitCode}, ${EXIT_MEANING[report.exitCode]}.`,
  );
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
  0: 'nothing found that would break bookings',
  1: 'something would break bookings (see the fail rows)',
  2: 'the namespace could not be checked (Temporal unreachable or refused this identity)',
} as const;

/** `doctor namespace`: the same table, headed by the namespace and task queue checked. */
export function renderNamespaceReport(report: NamespaceDoctorReport): string {
  const lines = [
    `Namespace '${report.namespace}' at ${report.temporal}, task queue '${report.taskQueue}'`,
    checksTable(report.checks, NAMESPACE_COLUMN_WIDTHS),
  ];
  if (report.skipped.length > 0) {
    lines.push('Not run:', ...report.skipped.map((s) => `  ${s.name}: ${s.reason}`));
  }
  if (report.stop !== undefined) {
    lines.push(`Stopped after ${report.stop.check}: Temporal is ${report.stop.kind} from here.`);
  }
  lines.push(
    `${counts(report)}: exit ${report.exitCode}, ${NAMESPACE_EXIT_MEANING[report.exitCode]}.`,
  );
  return lines.join('\n');
}
