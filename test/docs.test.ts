/**
 * The README is a front page and docs/ holds the topics: every relative link resolves, the
 * generated tables are what the code decides, every environment variable is documented.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { EnvSchema } from '../src/config';
import { ROOT, generatedSections, refreshSections } from '../tools/scripts/doc-sections';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOCS = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'examples/python-order-system/README.md',
  'examples/temporal-cli/README.md',
  'src/order-events/README.md',
];

/** GitHub's anchor of a heading. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('README and docs/', () => {
  it('the README is a front page: the two commands, at most 250 lines', () => {
    const readme = read('README.md');
    assert.ok(readme.includes('npm ci && npm run demo'));
    assert.ok(readme.includes('npm test'));
    const lines = readme.split('\n').length;
    assert.ok(lines <= 250, `README.md is ${lines} lines: move topics to docs/`);
  });

  it('every relative link resolves, to a file and to a heading in it', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const m of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [path, hash] = target.split('#');
        const resolved = path ? join(dirname(file), path) : file;
        if (!existsSync(join(ROOT, resolved))) {
          broken.push(`${file}: ${target}`);
          continue;
        }
        if (hash && resolved.endsWith('.md')) {
          const headings = [...read(resolved).matchAll(/^#+ (.*)$/gm)].map((h) => anchor(h[1]!));
          if (!headings.includes(hash)) broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('has the generated tables as the code decides them (run `npm run docs` after a change)', () => {
    for (const file of Object.keys(generatedSections())) {
      const text = read(file);
      assert.equal(text, refreshSections(file, text), `${file} is stale: run \`npm run docs\``);
    }
  });

  it('documents every environment variable the configuration reads (docs/configuration.md)', () => {
    const doc = read('docs/configuration.md');
    const missing = Object.keys(EnvSchema.shape).filter((name) => !doc.includes(`\`${name}\``));
    assert.deepEqual(missing, []);
  });

  it('cites no issue numbers: commits hold the history', () => {
    const cited = DOCS.filter((f) => /\bissue[ -]\d+/i.test(read(f)));
    assert.deepEqual(cited, []);
  });
});
