import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EnvSchema } from '../src/config';
import { README_PATH, refreshReadme } from '../src/scripts/readme-sections';

describe('README', () => {
  const readme = readFileSync(README_PATH, 'utf8');

  it('has the generated tables as the code decides them (run `npm run docs` after a change)', () => {
    assert.equal(readme, refreshReadme(readme));
  });

  it('documents every environment variable the configuration reads', () => {
    const missing = Object.keys(EnvSchema.shape).filter((name) => !readme.includes(`\`${name}\``));
    assert.deepEqual(missing, []);
  });

  it('shows the two front-door commands', () => {
    assert.ok(readme.includes('npm ci && npm run demo'));
    assert.ok(readme.includes('npm test'));
  });
});
