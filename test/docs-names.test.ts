/**
 * The docs name only what exists. In docs/, the README and src/order-events/README.md:
 *
 * - every command-line invocation (`hotel-booking …`, `npm run starter -- …`) names commands and
 *   flags the CLI has (asked of the CLI's own help, in-process);
 * - every alert is a rule of deploy/prometheus/alerts.yml;
 * - every metric series (`hotel_*`, `temporal_*`) is one of src/observability/metric-series.ts:
 *   the worker's (what it registers), the workflows' counters, and the SDK's series the product
 *   reads (which test/ops/alerts-end-to-end.test.ts sees on a real worker);
 * - every environment variable (an UPPER_SNAKE name of a family our variables use) is one the
 *   code reads: the product's schema (src/config/env-schema.ts), the alerting templates'
 *   (tools/alerting), a knob the tools, the bench or the test harness read, or Node's own.
 *
 * Each check is a function of a text, run once on a made-up name to show it can fail.
 */
import { SUPPLIER_ACCOUNT_DISABLED } from '../src/shared/supplier-accounts';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { PayloadFailureCode } from '../src/cli/cli-errors';
import { runCli } from '../src/cli/program';
import { PayloadCodecErrorCode } from '../src/codec/encryption-codec';
import { EnvSchema } from '../src/config';
import { HotelApiErrorCode } from '../src/hotel-api/errors';
import { BOOKING_NOT_SENT } from '../src/shared/booking-call-mark';
import { allMetricSeries, scrapedNames } from '../src/observability/metric-series';
import { ALERTING_VARIABLES } from '../tools/alerting/alerting-config';

const ROOT = join(__dirname, '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'src/order-events/README.md',
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
    for (const m of body.matchAll(
      /(?:hotel-booking|npm run (?:-s )?starter --) ((?:[\w-]|\s)[^`\n|]*)/g,
    )) {
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

/** Every name a scrape shows for a listed series (a histogram's `_bucket`, `_sum`, `_count` too). */
const KNOWN_METRICS = new Set(allMetricSeries().flatMap((m) => [m.name, ...scrapedNames(m)]));

/** The `hotel_*` and `temporal_*` series `text` names that the list does not have. */
function unknownMetrics(text: string): string[] {
  const named = [...text.matchAll(/\b(?:hotel|temporal)_[a-z0-9_]*[a-z0-9]\b/g)].map((m) => m[0]);
  return [...new Set(named)].filter((n) => !KNOWN_METRICS.has(n));
}

const PRODUCT_VARIABLES = Object.keys(EnvSchema.shape);
const ALERTING = Object.keys(ALERTING_VARIABLES);
/** Variables of others that the docs may name: what each belongs to. */
const UPSTREAM_VARIABLES: Record<string, string> = {
  NODE_OPTIONS: "Node.js's own (the image sets it)",
  // The Temporal CLI 1.5.1 reads PEM text from these (test/ops/temporal-cli-env.test.ts runs it).
  TEMPORAL_TLS_CERT_DATA: "the Temporal CLI's: the client certificate as PEM text",
  TEMPORAL_TLS_KEY_DATA: "the Temporal CLI's: the client key as PEM text",
  TEMPORAL_TLS_CA_DATA: "the Temporal CLI's: the server's CA as PEM text (1.5.1 refuses it alone)",
};
/**
 * A name "looks like our variable" when its first word is one our variables use (`TEMPORAL_`,
 * `HOTEL_`, `PAYLOAD_`, …, the alerting's), or a tool family's (`CHAOS_`, `TEST_`, `BENCH_`).
 */
const VARIABLE_FAMILIES = new Set([
  ...[...PRODUCT_VARIABLES, ...ALERTING].map((v) => v.split('_')[0]!),
  'CHAOS',
  'TEST',
  'BENCH',
]);
/** Names of those families that are not variables: the failure codes the product reports. */
const NOT_VARIABLES = new Set<string>([
  ...Object.values(HotelApiErrorCode),
  ...Object.values(PayloadCodecErrorCode),
  ...Object.values(PayloadFailureCode),
  BOOKING_NOT_SENT,
  SUPPLIER_ACCOUNT_DISABLED,
  'X_FILE', // the docs' placeholder for "any secret variable's _FILE form"
]);

/** The sources that read the tools' knobs: tools/, bench/, the test harness, deploy/'s templates. */
function toolSources(): string {
  const files: string[] = [join(ROOT, 'test', 'run.ts'), join(ROOT, 'docker-compose.yml')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'results') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|ya?ml|sh)$/.test(name)) files.push(path);
    }
  };
  for (const dir of ['tools', 'bench', 'deploy']) walk(join(ROOT, dir));
  return files.map((f) => readFileSync(f, 'utf8')).join('\n');
}
const TOOL_SOURCES = toolSources();
/** Read by code, not only mentioned: `env.NAME`, `'NAME'`, `"NAME"` or `${NAME}`. */
const readByTools = (name: string) =>
  new RegExp(`(?:\\benv\\.|['"\`]|\\$\\{)${name}\\b`).test(TOOL_SOURCES);

/**
 * A name of any family "looks like a setting" when its last word is one settings end with
 * (`MAX_CACHED_WORKFLOWS`, `…_TIMEOUT_MS`, `…_PORT`): a setting named in prose must exist too.
 */
const SETTING_ENDS = new Set(
  'MS SECONDS PORT URL FILE PATH DIR KEY KEYS SECRET TOKEN ADDRESS SIZE LIMIT WORKFLOWS INTERVAL TIMEOUT CONCURRENCY'.split(
    ' ',
  ),
);
const looksLikeVariable = (n: string) =>
  VARIABLE_FAMILIES.has(n.split('_')[0]!) || SETTING_ENDS.has(n.split('_').pop()!);

/** The variables `text` names (of our families, or shaped as settings) that no code reads. */
function unknownVariables(text: string): string[] {
  const named = [...text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)]
    .map((m) => m[0])
    .filter((n) => looksLikeVariable(n) && !NOT_VARIABLES.has(n));
  return [...new Set(named)].filter(
    (n) =>
      !PRODUCT_VARIABLES.includes(n) &&
      !ALERTING.includes(n) &&
      UPSTREAM_VARIABLES[n] === undefined &&
      !readByTools(n),
  );
}

/** Every file of the repository (not node_modules, caches or results), relative to it. */
function repoFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      if (['node_modules', '.git', '.data', 'results', 'dist'].includes(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path, `${rel}${name}/`);
      else out.push(`${rel}${name}`);
    }
  };
  walk(ROOT, '');
  return out;
}
const REPO_FILES = repoFiles();
const BASENAMES = new Set(REPO_FILES.map((f) => f.split('/').pop()!));
/** Files the docs name that are not in the repository, and why. */
const NOT_HERE: Record<string, string> = {
  'dist/workflows.bundle.js': '`npm run build` writes it',
  'alerting/alerts.yml': '`tools/alerting/main.ts render --out alerting/` writes it',
  'service/matching/ratelimit_manager.go': "the Temporal server's source",
  'docker-compose.override.yml':
    "yours: Compose's file of local overrides, beside docker-compose.yml",
};

/**
 * The source files `text` names in backticks (`src/x/y.ts`, `price-and-book.ts`, `run.sh`) that
 * do not exist: a path must be one of the repository's, a bare name some file's name. Patterns
 * (`*`, `<…>`, `{…}`) are not names.
 */
function unknownFiles(text: string): string[] {
  const named = [...text.matchAll(/`([^`\s*<>{}]+\.(?:ts|mjs|js|sh|py|go|ya?ml))`/g)].map((m) =>
    m[1]!.replace(/^\.\//, ''),
  );
  return [...new Set(named)].filter((n) =>
    NOT_HERE[n] !== undefined
      ? false
      : n.includes('/')
        ? !REPO_FILES.includes(n) && !REPO_FILES.some((f) => f.endsWith(`/${n}`))
        : !BASENAMES.has(n),
  );
}

const SCRIPTS = Object.keys(
  (JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts,
);

/**
 * What `text`'s npm commands name that does not exist: a script of `npm run [-s] <script>`, a
 * file of `npm test -- <files>`, a history folder of `RECORD_HISTORIES_INTO=<folder>`.
 */
function unknownNpmNames(text: string): string[] {
  const body = text.replace(/\\\n\s*/g, ' ');
  const scripts = [...body.matchAll(/npm run (?:-s )?([a-z][\w:-]*\w)/g)]
    .map((m) => m[1]!)
    .filter((n) => !SCRIPTS.includes(n))
    .map((n) => `npm run ${n}`);
  const files = [...body.matchAll(/npm test -- ([^`\n|;&]*)/g)]
    .flatMap((m) => m[1]!.trim().split(/\s+/))
    .filter((t) => /\.ts$/.test(t) && !t.includes('<') && !REPO_FILES.includes(t));
  const folders = [...body.matchAll(/RECORD_HISTORIES_INTO=([\w-]+)/g)]
    .map((m) => `test/histories/${m[1]!}`)
    .filter((d) => !REPO_FILES.some((f) => f.startsWith(`${d}/`)));
  return [...new Set([...scripts, ...files, ...folders])];
}

describe('the docs name only what exists', () => {
  it('every npm script, test file and history folder the docs name exists', () => {
    const unknown = DOCS.flatMap((f) => unknownNpmNames(text(f)).map((n) => `${f}: ${n}`));
    assert.deepEqual(unknown, []);
  });

  it('a made-up script, test file or history folder is told apart (the check above can fail)', () => {
    assert.deepEqual(
      unknownNpmNames(
        'npm run -s lint, npm run made-up; npm test -- test/docs.test.ts test/gone.test.ts; RECORD_HISTORIES_INTO=nowhere npm test',
      ),
      ['npm run made-up', 'test/gone.test.ts', 'test/histories/nowhere'],
    );
  });

  it('every source file the docs name exists', () => {
    const unknown = DOCS.flatMap((f) => unknownFiles(text(f)).map((n) => `${f}: ${n}`));
    assert.deepEqual(unknown, []);
  });

  it('a made-up file is told apart (the check above can fail)', () => {
    assert.deepEqual(
      unknownFiles('in `book-room-steps.ts`, `src/workflows/booking/book-room.ts`, `src/x.ts`'),
      ['book-room-steps.ts', 'src/x.ts'],
    );
  });

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
  it('every metric the docs name is a series of src/observability/metric-series.ts', () => {
    const unknown = DOCS.flatMap((f) => unknownMetrics(text(f)).map((n) => `${f}: ${n}`));
    assert.deepEqual(unknown, []);
    const named = new Set(DOCS.flatMap((f) => [...text(f).matchAll(/\bhotel_[a-z_]+/g)]));
    assert.ok(named.size >= 10, `${named.size} metric names found`);
  });

  it('a made-up metric is told apart (the check above can fail)', () => {
    assert.deepEqual(
      unknownMetrics('alert on `hotel_bookings_lost_total` and `temporal_made_up`'),
      ['hotel_bookings_lost_total', 'temporal_made_up'],
    );
    assert.deepEqual(
      unknownMetrics(
        'hotel_supplier_calls_total, hotel_poll_lateness_seconds_bucket, temporal_num_pollers, ' +
          'temporal_hotel_reconfirmation_flags, temporal_workflow_task_execution_latency_bucket',
      ),
      [],
    );
  });

  it('every environment variable the docs name is one the code reads', () => {
    const unknown = DOCS.flatMap((f) => unknownVariables(text(f)).map((n) => `${f}: ${n}`));
    assert.deepEqual(unknown, []);
  });

  it('a made-up variable is told apart (the check above can fail)', () => {
    assert.deepEqual(
      unknownVariables(
        'Set `HOTEL_API_TIMEOUT_SECONDS=30`, `PAYLOAD_ENCRYPTION_KEY`, `CHAOS_FLEET_SPEED=2`; a larger `WORKFLOW_CACHE_SIZE`.',
      ),
      [
        'HOTEL_API_TIMEOUT_SECONDS',
        'PAYLOAD_ENCRYPTION_KEY',
        'CHAOS_FLEET_SPEED',
        'WORKFLOW_CACHE_SIZE',
      ],
    );
    assert.deepEqual(
      unknownVariables(
        'PAYLOAD_ENCRYPTION_KEYS, RUNBOOK_BASE_URL, CHAOS_FLEET_BOOKINGS, TEST_ON_CLUSTER, ' +
          'NODE_OPTIONS; codes and phases are not variables: SUPPLIER_UNAVAILABLE, NEEDS_RECONCILIATION',
      ),
      [],
    );
  });
});
