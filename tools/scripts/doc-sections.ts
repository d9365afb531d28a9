/**
 * Sections of docs/ generated from the code that decides them, so the docs cannot drift: the
 * failure classification (src/hotel-api/errors.ts) in docs/hard-rules.md, the simulator
 * scenarios and deviations in docs/simulator.md, the environment variables
 * (src/config/env-schema.ts) in docs/configuration.md, the metric series
 * (src/observability/metric-series.ts) and the saved views (src/observability/saved-queries.ts)
 * in docs/operating.md. `npm run docs` rewrites them; a test fails when one is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedVariables } from '../../src/config/env-schema';
import { classificationTableMarkdown } from '../../src/hotel-api/errors';
import {
  SDK_SERIES,
  WORKER_SERIES,
  WORKFLOW_SERIES,
  type MetricSeries,
} from '../../src/observability/metric-series';
import { savedQueriesMarkdown } from '../../src/observability/saved-queries';
import { DEVIATIONS } from '../simulator/deviations';
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

function variableTable(): string {
  const cell = (t: string) => t.replaceAll('|', '\\|');
  return [
    '| variable | default | meaning |',
    '|---|---|---|',
    ...documentedVariables().map(
      (v) => `| \`${v.name}\` | ${cell(v.defaultText)} | ${cell(v.meaning)} |`,
    ),
  ].join('\n');
}

function deviationTable(): string {
  const cell = (t: string) => t.replaceAll('|', '\\|');
  return [
    '| deviation | what the supplier does | parameter (default) | reported by `doctor` |',
    '|---|---|---|---|',
    ...DEVIATIONS.map(
      (d) =>
        `| \`${d.name}\` | ${cell(d.description)} | ${d.param ? `${cell(d.param.meaning)} (${d.param.default})` : '—'} | ${cell(d.detectedBy)} |`,
    ),
  ].join('\n');
}

function metricTable(): string {
  const cell = (t: string) => t.replaceAll('|', '\\|');
  const row = (s: MetricSeries, from: string) =>
    `| \`${s.name}\` | ${s.type} | ${s.labels.join(', ')} | ${from} | ${cell(s.meaning)} |`;
  return [
    '| series | type | labels | exported by | meaning |',
    '|---|---|---|---|---|',
    ...Object.values(WORKER_SERIES).map((s) => row(s, 'the worker')),
    ...Object.values(WORKFLOW_SERIES).map((s) => row(s, "workflows, through the SDK's meter")),
    ...SDK_SERIES.map((s) => row(s, 'the SDK')),
    "| `process_*`, `nodejs_*`, the SDK's other `temporal_*` |  |  | Node.js, the SDK | their own |",
  ].join('\n');
}

/** The moment the saved views in docs/operating.md are rendered for. */
const SAVED_VIEWS_AT = new Date('2026-03-01T08:00:00Z');

export const ROOT = join(__dirname, '..', '..');

/** File (from the repository's root) → section name → generated markdown. */
export function generatedSections(): Record<string, Record<string, string>> {
  return {
    'docs/hard-rules.md': { classification: classificationTableMarkdown() },
    'docs/simulator.md': { scenarios: scenarioTable(), deviations: deviationTable() },
    'docs/configuration.md': { variables: variableTable() },
    'docs/operating.md': {
      metrics: metricTable(),
      'saved-views': savedQueriesMarkdown({ now: SAVED_VIEWS_AT }),
    },
  };
}

/** `text` with every `<!-- generated:NAME -->…<!-- /generated:NAME -->` region of `file` refreshed. */
export function refreshSections(file: string, text: string): string {
  let out = text;
  for (const [name, body] of Object.entries(generatedSections()[file] ?? {})) {
    const re = new RegExp(`(<!-- generated:${name} -->\\n)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!re.test(out)) throw new Error(`${file} has no generated:${name} region`);
    out = out.replace(re, (_m, open: string, close: string) => `${open}${body}\n${close}`);
  }
  return out;
}

if (require.main === module) {
  for (const file of Object.keys(generatedSections())) {
    const path = join(ROOT, file);
    writeFileSync(path, refreshSections(file, readFileSync(path, 'utf8')));
    console.log(`${file}: generated sections refreshed`);
  }
}
