/**
 * The configuration, fuzzed: every documented variable (and its `_FILE` form where it has one) set
 * to hostile text in an otherwise valid environment, one at a time. The worker's loader must
 * accept it or refuse it with `ConfigError`, one line a problem, each starting with the variable it
 * is about (the one set, or one it needs with it);
 * never throw anything else, and never echo a secret's value.
 */
import fc from 'fast-check';
import { ConfigError } from '../../src/config';
import { documentedVariables } from '../../src/config/env-schema';
import { loadWorkerConfig } from '../../src/worker-config';
import {
  defect,
  HOSTILE_TEXT,
  tally,
  type CampaignOptions,
  type Surface,
  type Tally,
} from './campaign';

const SECRET = /KEY|SECRET|TOKEN|PASSWORD/;
/** A password the leak check looks for, in URLs that carry credentials. */
const URL_PASSWORD = 'fuzz-pw-7c1e9a';

const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `http://user:${URL_PASSWORD}@example.com:8443/x`,
      `https://user:${URL_PASSWORD}@127.0.0.1`,
      'ftp://example.com',
      'http://',
      '/no/such/file',
      '/',
      'whsec_',
      'k1:AAAA',
      'k1:' + 'A'.repeat(44) + ',k1:' + 'B'.repeat(44),
    ),
  },
);

function names(): string[] {
  const documented = documentedVariables().map((v) => v.name);
  const files = documented.filter((n) => n.endsWith('_FILE'));
  return [...documented, ...files.map((n) => n.replace(/_FILE$/, ''))].filter(
    (n, i, all) => all.indexOf(n) === i,
  );
}

/** One variable set to one value: what the loader did with it. */
function judge(t: Tally, name: string, raw: string): void {
  const input = `${name}=${JSON.stringify(raw.length > 120 ? `${raw.slice(0, 120)}…(${raw.length})` : raw)}`;
  let problems: readonly string[];
  try {
    loadWorkerConfig({ [name]: raw });
    return;
  } catch (err) {
    if (!(err instanceof ConfigError)) {
      defect(
        t,
        'crashes',
        input,
        `threw ${err instanceof Error ? err.name : typeof err}: ${String(err).slice(0, 200)}`,
      );
      return;
    }
    problems = err.problems;
  }
  const text = problems.join('\n');
  // A `_FILE` variable holds a path, which its refusal names; the others' values are secrets.
  const secret = SECRET.test(name) && !name.endsWith('_FILE');
  const secretValue = secret && raw.trim().length >= 6 ? raw.trim() : undefined;
  if ((secretValue && text.includes(secretValue)) || text.includes(URL_PASSWORD))
    defect(t, 'leaks', input, 'a secret in the refusal');
  if (problems.length === 0 || problems.some((p) => p.includes('\n') || /\n\s+at /.test(p)))
    defect(
      t,
      'unclear',
      input,
      `not one line a problem: ${JSON.stringify(problems).slice(0, 200)}`,
    );
  else if (!problems.every((p) => /^[A-Z][A-Z0-9_]*[ :.(,[]/.test(p)))
    defect(
      t,
      'unclear',
      input,
      `a problem names no variable: ${JSON.stringify(problems).slice(0, 200)}`,
    );
}

export const configurationSurface: Surface = {
  name: 'configuration',
  async run({ seed, count, until }: CampaignOptions) {
    const t = tally('configuration', {});
    const inputs = fc.sample(fc.tuple(fc.constantFrom(...names()), value), {
      seed,
      numRuns: count,
    });
    for (const [name, raw] of inputs) {
      if (Date.now() > until) break;
      t.inputs += 1;
      judge(t, name, raw);
    }
    return t;
  },
};
