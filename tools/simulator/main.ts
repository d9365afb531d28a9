/**
 * CLI: `tsx tools/simulator/main.ts [--port 8080] [--host 127.0.0.1]
 *   [--company <key>:<secret>:<active|inactive>]... [--latency-ms <n>|<min>-<max>]
 *   [--company-fault <key>:<fault>]... [--seed <n>] [--inspection]
 *   [--deviation <name>[=<param>]]... [--hostile <kind>[:<endpoint>]]...`
 *
 * A `--company-fault` fault is `hang`, `latency-ms=<n>|<min>-<max>`, `error-rate=<0..1>` (every
 * endpoint) or `rate-limit=<per second>`; several for one key add up.
 *
 * Prints `Simulator listening on http://127.0.0.1:<port>/api/v1` once bound; SIGINT/SIGTERM
 * close it cleanly.
 */
import { parseArgs } from 'node:util';
import { PortInUseError, whenPortInUse } from '../../src/observability/ports';
import type { CompanyAccount } from './auth';
import type { DeviationName, Deviations } from './deviations';
import { DEVIATION_NAMES } from './deviations';
import type { CompanyFaultSettings, LatencyOption } from './faults';
import type { HostileRule } from './hostile';
import { HostileRuleSchema, HOSTILE_KINDS } from './hostile';
import { DEMO_COMPANY } from './options';
import { buildSimulator } from './server';

const USAGE = `usage: tsx tools/simulator/main.ts [--port <n>] [--host <addr>]
  [--company <key>:<secret>:<active|inactive>]... [--latency-ms <n>|<min>-<max>]
  [--company-fault <key>:<fault>]... [--seed <n>] [--inspection]
  [--deviation <name>[=<param>]]... [--hostile <kind>[:<endpoint>]]...
company faults: hang, latency-ms=<n>|<min>-<max>, error-rate=<0..1>, rate-limit=<per second>
deviations: ${DEVIATION_NAMES.join(', ')} (docs/simulator.md)
hostile kinds: ${HOSTILE_KINDS.join(', ')}`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function parseCompany(spec: string): CompanyAccount {
  // The secret may itself contain colons: key is before the first, the flag after the last.
  const first = spec.indexOf(':');
  const last = spec.lastIndexOf(':');
  const state = spec.slice(last + 1);
  if (first <= 0 || last === first || (state !== 'active' && state !== 'inactive')) {
    fail(`--company must be <key>:<secret>:<active|inactive>, got ${spec}`);
  }
  return {
    key: spec.slice(0, first),
    secret: spec.slice(first + 1, last),
    active: state === 'active',
  };
}

function parseLatency(raw: string): LatencyOption {
  const range = /^(\d+)-(\d+)$/.exec(raw);
  if (range) return { minMs: Number(range[1]), maxMs: Number(range[2]) };
  if (/^\d+$/.test(raw)) return { fixedMs: Number(raw) };
  return fail(`--latency-ms must be <n> or <min>-<max>, got ${raw}`);
}

const COMPANY_FAULT_FORM =
  '<key>:hang, <key>:latency-ms=<n>|<min>-<max>, <key>:error-rate=<0..1> or <key>:rate-limit=<n>';

/** One `--company-fault` fault, or undefined when it is not one. */
function companyFault(name: string, value: string | undefined): CompanyFaultSettings | undefined {
  if (value === undefined) return name === 'hang' ? { hang: true } : undefined;
  const number = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (name === 'latency-ms') return { latency: parseLatency(value) };
  if (name === 'error-rate' && number <= 1) return { errorRate: { '*': number } };
  if (name === 'rate-limit' && number > 0) return { rateLimit: { perSecond: number } };
  return undefined;
}

function parseCompanyFaults(
  specs: readonly string[],
  companies: readonly CompanyAccount[],
): Record<string, CompanyFaultSettings> {
  const out = new Map<string, CompanyFaultSettings>();
  for (const spec of specs) {
    // A key may hold colons, a fault never does: the fault is after the last one.
    const colon = spec.lastIndexOf(':');
    const key = spec.slice(0, Math.max(0, colon));
    const [name = '', value] = spec.slice(colon + 1).split('=', 2);
    const bad = () => fail(`--company-fault must be ${COMPANY_FAULT_FORM}, got ${spec}`);
    if (colon <= 0) bad();
    if (!companies.some((c) => c.key === key)) {
      fail(`--company-fault names no company: ${key} (give it with --company)`);
    }
    const fault = companyFault(name, value) ?? bad();
    out.set(key, { ...out.get(key), ...fault });
  }
  return Object.fromEntries(out);
}

function parseDeviations(specs: readonly string[]): Deviations {
  const out: Partial<Record<DeviationName, true | number>> = {};
  for (const spec of specs) {
    const [name = '', param] = spec.split('=', 2);
    if (!(DEVIATION_NAMES as readonly string[]).includes(name)) {
      fail(`--deviation must be one of ${DEVIATION_NAMES.join(', ')}, got ${name}`);
    }
    out[name as DeviationName] = param === undefined ? true : integer(param, `--deviation ${name}`);
  }
  return out;
}

function parseHostile(specs: readonly string[]): HostileRule[] {
  return specs.map((spec) => {
    const [kind, endpoint] = spec.split(':', 2);
    const rule = HostileRuleSchema.safeParse({ kind, ...(endpoint ? { endpoint } : {}) });
    if (!rule.success) fail(`--hostile must be <kind>[:<endpoint>], got ${spec}`);
    return rule.data;
  });
}

function integer(raw: string, name: string): number {
  if (!/^-?\d+$/.test(raw)) fail(`${name} must be an integer, got ${raw}`);
  return Number(raw);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '8080' },
        host: { type: 'string', default: '127.0.0.1' },
        company: { type: 'string', multiple: true },
        'latency-ms': { type: 'string' },
        'company-fault': { type: 'string', multiple: true },
        seed: { type: 'string' },
        inspection: { type: 'boolean', default: false },
        deviation: { type: 'string', multiple: true },
        hostile: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const given = (values.company ?? []).map(parseCompany);
  const companies = given.length > 0 ? given : [DEMO_COMPANY];
  const latency =
    values['latency-ms'] === undefined ? undefined : parseLatency(values['latency-ms']);
  const sim = buildSimulator({
    companies,
    ...(latency === undefined ? {} : { latency }),
    companyFaults: parseCompanyFaults(values['company-fault'] ?? [], companies),
    ...(values.seed === undefined ? {} : { seed: integer(values.seed, '--seed') }),
    inspection: values.inspection,
    deviations: parseDeviations(values.deviation ?? []),
    hostile: parseHostile(values.hostile ?? []),
  });
  const port = integer(values.port, '--port');
  const { url } = await sim
    .listen(port, values.host)
    .catch(whenPortInUse('--port', port, 'the simulator; 0 takes a free one', values.host));
  process.stdout.write(`Simulator listening on ${url}\n`);

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`Simulator closing (${signal})\n`);
    sim.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(err instanceof PortInUseError ? 2 : 1);
});
