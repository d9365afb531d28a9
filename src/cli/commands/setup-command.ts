/** `setup`: registers missing search attributes (src/namespace/prepare-namespace.ts). */
import type { Command } from 'commander';
import { describeTemporalSecurity } from '../../client/connection-options';
import { MIN_RETENTION_DAYS } from '../../doctor/namespace-verdicts';
import {
  createNamespaceHint,
  registerAttributeCommands,
  type CommandTarget,
} from '../../namespace/operator-commands';
import { prepareNamespace, type PrepareOutcome } from '../../namespace/prepare-namespace';
import {
  type SearchAttributeSpec,
  cliTypeName,
  conflictLines,
  PRODUCT_SEARCH_ATTRIBUTES,
} from '../../namespace/search-attribute-plan';
import type { CliContext, CommandRunner } from '../cli-context';
import { type CliError, failedError } from '../cli-errors';
import { formatDuration, table } from '../render';

/** `setup --json`: what the namespace has now, and what this run changed. */
export interface SetupReport {
  readonly temporal: string;
  readonly namespace: string;
  /** Set when this run created the namespace (`--create-namespace`). */
  readonly namespaceCreated?: { readonly retentionDays: number };
  readonly searchAttributes: readonly {
    readonly name: string;
    /** As the CLIs spell it: `Keyword`, `Int`, `Datetime`. */
    readonly type: string;
    readonly result: 'created' | 'already present';
  }[];
  readonly created: number;
  readonly alreadyPresent: number;
  /** How long until queries accepted the created attributes, ms (0 when none was created). */
  readonly usableAfterMs: number;
}

/** Rows in the order of the one list (src/shared/search-attributes.ts). */
const rank = (s: SearchAttributeSpec) =>
  PRODUCT_SEARCH_ATTRIBUTES.findIndex((p) => p.name === s.name);

const issuesOf = (specs: readonly SearchAttributeSpec[], message: string) =>
  specs.map((s) => ({ field: s.name, message: `${cliTypeName(s.type)}: ${message}` }));

/** The outcomes that are not done, as the one line (and the commands to copy) of a CliError. */
export function setupFailure(
  outcome: Exclude<PrepareOutcome, { kind: 'prepared' }>,
  target: CommandTarget,
): CliError {
  const ns = `namespace '${target.namespace}' at ${target.address}`;
  switch (outcome.kind) {
    case 'no-namespace':
      return failedError(
        outcome.refusal
          ? `There is no ${ns}, and Temporal refused to create it (${outcome.refusal.code}: ${outcome.refusal.details}): ${createNamespaceHint(target, MIN_RETENTION_DAYS)} (someone allowed to), then run \`hotel-booking setup\` again.`
          : `There is no ${ns} (${outcome.details}): \`hotel-booking setup --create-namespace\` creates it with ${MIN_RETENTION_DAYS} days of retention (or ${createNamespaceHint(target, MIN_RETENTION_DAYS)}), or set TEMPORAL_NAMESPACE to the one the workers use.`,
        outcome.refusal ? 'NAMESPACE_NOT_PERMITTED' : 'NAMESPACE_NOT_FOUND',
      );
    case 'conflict':
      return failedError(
        `The ${ns} has search attributes of another type: ${conflictLines(outcome.conflicts).join('; ')}. Nothing was changed: bookings cannot write them; use another namespace (TEMPORAL_NAMESPACE) or have an admin remove them.`,
        'SEARCH_ATTRIBUTE_TYPE_CONFLICT',
        outcome.conflicts.map((c) => ({
          field: c.name,
          message: `registered as ${cliTypeName(c.registered)}; the product writes ${cliTypeName(c.wanted)}`,
        })),
      );
    case 'refused': {
      const what = outcome.step === 'list' ? 'list the search attributes of' : 'register';
      const names = outcome.toRegister.map((s) => s.name).join(', ');
      return failedError(
        [
          `Temporal refused to ${what} the ${ns} (${outcome.refusal.code}: ${outcome.refusal.details}): ${names} must be registered by someone allowed to (on Temporal Cloud an account or namespace admin). Nothing was changed. The commands:`,
          ...registerAttributeCommands(target, outcome.toRegister).map((c) => `  ${c}`),
        ].join('\n'),
        'SEARCH_ATTRIBUTES_NOT_PERMITTED',
        issuesOf(outcome.toRegister, 'not registered'),
      );
    }
    case 'not-usable':
      return failedError(
        `Registered ${outcome.created.map((s) => s.name).join(', ')} on the ${ns}, but queries did not accept them within ${formatDuration(outcome.timeoutMs)}: run \`hotel-booking setup\` again before starting workers.`,
        'SEARCH_ATTRIBUTES_NOT_USABLE',
        issuesOf(outcome.created, 'registered, not yet usable'),
      );
  }
}

function render(report: SetupReport, security: string): string {
  const summary =
    report.created === 0
      ? `${report.alreadyPresent} already present: nothing changed.`
      : `${report.created} created, ${report.alreadyPresent} already present; queries accept them (after ${formatDuration(report.usableAfterMs)}).`;
  const rows = report.searchAttributes.map((a) => [a.name, a.type, a.result]);
  return [
    `Namespace '${report.namespace}' at ${report.temporal} (${security})${report.namespaceCreated ? `: created, retention ${report.namespaceCreated.retentionDays} days` : ''}`,
    table(['Search attribute', 'Type', 'Result'], rows),
    `Search attributes: ${summary}`,
  ].join('\n');
}

async function setup(ctx: CliContext, createNamespace: boolean): Promise<void> {
  const { address, namespace } = ctx.config.temporal;
  const { connection } = await ctx.temporal();
  ctx.note(`Preparing namespace '${namespace}' at ${address}…`);
  const outcome = await prepareNamespace(
    connection,
    namespace,
    createNamespace ? { createWithRetentionDays: MIN_RETENTION_DAYS } : {},
  );
  if (outcome.kind !== 'prepared') throw setupFailure(outcome, { address, namespace });
  const created = new Set(outcome.created.map((s) => s.name));
  const report: SetupReport = {
    temporal: address,
    namespace,
    ...(outcome.namespaceCreated ? { namespaceCreated: outcome.namespaceCreated } : {}),
    searchAttributes: [...outcome.created, ...outcome.present]
      .sort((a, b) => rank(a) - rank(b))
      .map((s) => ({
        name: s.name,
        type: cliTypeName(s.type),
        result: created.has(s.name) ? 'created' : 'already present',
      })),
    created: outcome.created.length,
    alreadyPresent: outcome.present.length,
    usableAfterMs: outcome.usableAfterMs,
  };
  ctx.emit(report, () => render(report, describeTemporalSecurity(ctx.config.temporal)));
}

export function registerSetupCommand(program: Command, run: CommandRunner): void {
  program
    .command('setup')
    .description(
      "Prepare the configured namespace (TEMPORAL_*): register the product's search attributes it lacks, with their types; idempotent",
    )
    .option(
      '--create-namespace',
      `create the namespace when it does not exist, with ${MIN_RETENTION_DAYS} days of retention (self-hosted; on Temporal Cloud the command to run is printed)`,
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 prepared (or already); 1 not done: no permission (the commands to run are printed), an attribute of another type, no such namespace; 2 bad configuration; 3 Temporal unreachable.\nThen check it: doctor namespace. See docs/deploying.md.',
    )
    .action((opts: { createNamespace?: boolean }) =>
      run((ctx) => setup(ctx, opts.createNamespace === true)),
    );
}
