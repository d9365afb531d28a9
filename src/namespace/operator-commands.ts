/**
 * The commands a person runs where the product may not change the namespace itself (Temporal
 * Cloud's admins with `tcld`, a self-hosted server's with `temporal operator …`), printed exactly
 * by `setup` and `doctor namespace`, to copy. Pure.
 */
import type { SearchAttributeSpec } from './search-attribute-plan';
import { cliTypeName, nameTypePairs } from './search-attribute-plan';

/** Temporal Cloud's gRPC endpoints: `<ns>.<account>.tmprl.cloud` and `<region>.<cloud>.api.temporal.io`. */
const CLOUD_ADDRESS = /\.(tmprl\.cloud|api\.temporal\.io)(:\d+)?$/i;

/** Whether `address` (`host:port`) is a Temporal Cloud endpoint. */
export function isTemporalCloud(address: string): boolean {
  return CLOUD_ADDRESS.test(address.trim());
}

/** `word` as one shell word: bare when it is safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Where the commands run: the namespace and the address the product connects to. */
export interface CommandTarget {
  readonly namespace: string;
  readonly address: string;
}

/**
 * The commands that register `specs`: one `tcld`, and one Temporal CLI command per attribute (CLI
 * v1.5.1 silently drops a `--name` without its `--type`); the kind the address points at first.
 */
export function registerAttributeCommands(
  target: CommandTarget,
  specs: readonly SearchAttributeSpec[],
): string[] {
  const ns = shellWord(target.namespace);
  const tcld = `tcld namespace search-attributes add --namespace ${ns} ${nameTypePairs(specs)
    .map((p) => `--search-attribute ${shellWord(p)}`)
    .join(' ')}`;
  const cli = specs.map(
    (s) =>
      `temporal operator search-attribute create --address ${shellWord(target.address)} --namespace ${ns} --name ${shellWord(s.name)} --type ${cliTypeName(s.type)}`,
  );
  return isTemporalCloud(target.address) ? [tcld, ...cli] : [...cli, tcld];
}

/** The commands that set the namespace's retention to `days`, the address's kind first. */
export function retentionCommands(target: CommandTarget, days: number): string[] {
  const ns = shellWord(target.namespace);
  const tcld = `tcld namespace retention set --namespace ${ns} --retention-days ${days}`;
  const cli = `temporal operator namespace update --address ${shellWord(target.address)} --namespace ${ns} --retention ${days}d`;
  return isTemporalCloud(target.address) ? [tcld, cli] : [cli, tcld];
}

/**
 * How to create the namespace with `days` of retention: the Temporal CLI's command, or on
 * Temporal Cloud (where a namespace also needs a region and its authentication) where to do it.
 */
export function createNamespaceHint(target: CommandTarget, days: number): string {
  if (isTemporalCloud(target.address)) {
    return `create it in the Temporal Cloud UI or with \`tcld namespace create\` (retention ${days} days)`;
  }
  return `create it: \`temporal operator namespace create --address ${shellWord(target.address)} --namespace ${shellWord(target.namespace)} --retention ${days}d\``;
}
