/**
 * docs/deploying.md "What the Temporal server needs" gives the dynamic-config lines a server of
 * yours needs, and they are the ones the product's own servers run with
 * (deploy/temporal/dynamicconfig/development-sql.yaml, which the dev server's settings match:
 * test/ops/compose.test.ts): among them one task-queue partition, without which the supplier rate
 * cap (`SUPPLIER_MAX_CALLS_PER_SECOND`, enforced per partition) does not hold as one cap.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { DEFAULT_TASK_QUEUE } from '../../src/config/defaults';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

type DynamicConfig = Record<string, { value: unknown; constraints?: Record<string, unknown> }[]>;

/** The section of a Markdown page under `heading`, to the next heading of its level. */
function section(page: string, heading: string): string {
  const start = page.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `the page has "${heading}"`);
  const end = page.indexOf('\n## ', start + heading.length + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

/** The settings of the YAML code blocks of `markdown` (indented blocks of a list item too). */
function yamlSettings(markdown: string): DynamicConfig {
  const settings: DynamicConfig = {};
  for (const m of markdown.matchAll(/^( *)```yaml\n([\s\S]*?)^\1```$/gm)) {
    const indent = m[1]!.length;
    const body = m[2]!
      .split('\n')
      .map((l) => l.slice(indent))
      .join('\n');
    Object.assign(settings, parse(body) as DynamicConfig);
  }
  return settings;
}

describe('what the Temporal server needs (docs/deploying.md)', () => {
  const needs = section(read('docs/deploying.md'), '## What the Temporal server needs');
  const ours = parse(read('deploy/temporal/dynamicconfig/development-sql.yaml')) as DynamicConfig;

  it('gives the dynamic-config lines for one partition of the booking task queue', () => {
    const given = yamlSettings(needs);
    for (const key of [
      'matching.numTaskqueueReadPartitions',
      'matching.numTaskqueueWritePartitions',
    ]) {
      const [entry] = given[key] ?? [];
      assert.ok(entry, `${key} is given`);
      assert.equal(entry.value, 1, key);
      assert.equal(entry.constraints?.taskQueueName, DEFAULT_TASK_QUEUE, `${key} for the queue`);
      assert.equal(ours[key]?.[0]?.value, 1, `the product's servers set ${key} to 1 too`);
    }
    assert.match(needs, /SUPPLIER_MAX_CALLS_PER_SECOND/);
    assert.match(needs, /per partition/);
  });

  it("names every setting it gives as the product's servers set it", () => {
    const given = yamlSettings(needs);
    assert.ok(Object.keys(given).length >= 2);
    for (const [key, entries] of Object.entries(given)) {
      assert.deepEqual(
        entries.map((e) => e.value),
        (ours[key] ?? []).map((e) => e.value),
        `${key}: as deploy/temporal/dynamicconfig/development-sql.yaml`,
      );
    }
  });

  it('the go-live checklist asks for it', () => {
    const goLive = read('docs/go-live.md');
    assert.match(goLive, /matching\.numTaskqueueReadPartitions/);
    assert.match(goLive, /matching\.numTaskqueueWritePartitions/);
  });

  it('a section without the lines is told apart (the checks above can fail)', () => {
    assert.deepEqual(yamlSettings('## What the Temporal server needs\n\n- retention\n'), {});
    assert.deepEqual(yamlSettings('- item\n\n  ```yaml\n  a.b:\n    - value: 2\n  ```\n'), {
      'a.b': [{ value: 2 }],
    });
  });
});
