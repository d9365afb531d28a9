/**
 * README sections generated from the code that decides them, so the docs cannot drift: the
 * failure classification (src/hotel-api/errors.ts) and the simulator scenarios. `npm run docs`
 * rewrites them in README.md; a test fails when README.md is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classificationTableMarkdown } from '../hotel-api/errors';
import { SCENARIOS } from '../simulator/scenarios';

function scenarioTable(): string {
  const cell = (t: string) => t.replaceAll('|', '\\|');
  return [
    '| scenario | what the supplier does | parameter (default) |',
    '|---|---|---|',
    ...SCENARIOS.map(
      (s) =>
        `| \`${s.name}\` | ${cell(s.description)} | ${s.param ? `${cell(s.param.meaning)} (${s.param.default === Infinity ? 'forever' : s.param.default})` : '—'} |`,
    ),
  ].join('\n');
}

/** Section name → generated markdown. */
export function generatedSections(): Record<string, string> {
  return { classification: classificationTableMarkdown(), scenarios: scenarioTable() };
}

export const README_PATH = join(__dirname, '..', '..', 'README.md');

/** README text with every `<!-- generated:NAME -->…<!-- /generated:NAME -->` region refreshed. */
export function refreshReadme(text: string): string {
  let out = text;
  for (const [name, body] of Object.entries(generatedSections())) {
    const re = new RegExp(`(<!-- generated:${name} -->\\n)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!re.test(out)) throw new Error(`README.md has no generated:${name} region`);
    out = out.replace(re, (_m, open: string, close: string) => `${open}${body}\n${close}`);
  }
  return out;
}

if (require.main === module) {
  writeFileSync(README_PATH, refreshReadme(readFileSync(README_PATH, 'utf8')));
  console.log('README.md generated sections refreshed');
}
