/**
 * The docs name only what exists: every command-line invocation in docs/ and the README
 * (`hotel-booking …`, `npm run starter -- …`) names commands and flags the CLI has (asked of the
 * CLI's own help, in-process), and every alert they name is a rule of deploy/prometheus/alerts.yml.
 * (Variables: docs.test.ts; metrics: test/ops/alerts-end-to-end.test.ts, against a real worker.)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../src/cli/program';

const ROOT = join(__dirname, '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The CLI's help for `words` (empty for the program), or undefined when it has no such command. */
async function helpOf(words: readonly string[]): Promise<string | undefined> {
  let out = '';
  const io = {
    stdout: (s: string) => {
      out += s;
    },
    stderr: (s: string) => {
      out += s;
    },
  };
  const code = await runCli([...words, '--help'], {
    io,
    loadConfig: () => {
      throw new Error('no configuration in this test');
    },
  });
  const usage = new RegExp(
    `^Usage: hotel-booking${words.map((w) => ` ${w}`).join('')}(\\s|$)`,
    'm',
  );
  return code === 0 && usage.test(out) ? out : undefined;
}

/** Every invocation of the CLI in the docs: its words (until an argument) and its flags. */
function invocations(): { where: string; words: string[]; flags: string[] }[] {
  const found: { where: string; words: string[]; flags: string[] }[] = [];
  for (const file of DOCS) {
    const body = text(file).replace(/\\\n\s*/g, ' ');
    for (const m of body.matchAll(/(?:hotel-booking|npm run starter --) ((?:[\w-]|\s)[^`\n|]*)/g)) {
      const tokens = m[1]!.trim().split(/\s+/);
      const words: string[] = [];
      for (const t of tokens) {
        if (!/^[a-z][a-z-]*$/.test(t)) break;
        words.push(t);
      }
      if (words.length === 0) continue;
      const flags = tokens.filter((t) => /^--[a-z][a-z-]*/.test(t)).map((t) => t.split('=')[0]!);
      found.push({ where: `${file}: ${m[0].trim()}`, words, flags });
    }
  }
  return found;
}

describe('the docs name only what exists', () => {
  it('every CLI command and flag in docs/ and the README is one the CLI has', async () => {
    const all = invocations();
    assert.ok(all.length > 20, `found ${all.length} invocations`);
    const problems: string[] = [];
    for (const { where, words, flags } of all) {
      // The longest prefix of the words that is a command (the rest are its arguments).
      let help: string | undefined;
      for (let n = words.length; n > 0 && help === undefined; n--) {
        help = await helpOf(words.slice(0, n));
      }
      if (help === undefined) {
        problems.push(`${where}: no command ${words[0]}`);
        continue;
      }
      const global = (await helpOf([]))!;
      for (const flag of flags) {
        const known = new RegExp(`(^|[\\s,])${flag}\\b`, 'm');
        if (!known.test(help) && !known.test(global)) problems.push(`${where}: no flag ${flag}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('an unknown command or flag is told apart (the check above can fail)', async () => {
    assert.ok(await helpOf(['cancel']));
    assert.equal(await helpOf(['no-such-command']), undefined);
    assert.doesNotMatch((await helpOf(['cancel']))!, /--no-such-flag\b/);
  });

  it('every alert the docs name is a rule of deploy/prometheus/alerts.yml', () => {
    const rules = parse(text('deploy/prometheus/alerts.yml')) as {
      groups: { rules: { alert?: string }[] }[];
    };
    const alerts = new Set(rules.groups.flatMap((g) => g.rules.map((r) => r.alert)));
    const named = new Set(
      DOCS.flatMap((f) =>
        [...text(f).matchAll(/\b(Hotel[A-Z][A-Za-z]+)\b/g)]
          .map((m) => m[1]!)
          // Code identifiers (types and classes of src/) are not alerts.
          .filter((n) => !/(Config|Client|Error|Options)$/.test(n)),
      ),
    );
    assert.ok(named.size >= 10, `${named.size} alerts named`);
    assert.deepEqual(
      [...named].filter((n) => !alerts.has(n)),
      [],
    );
  });
});
