/**
 * src/ has no import cycle, and the walls between its folders hold. The import graph is read from
 * the sources with TypeScript's own pre-processing (`import`, `import type`, `export … from`,
 * `require('./…')`, `import('./…')`), each relative specifier resolved to its file: a type-only
 * import ties two files as a value import does. Any cycle fails, naming its files; so does an
 * import across a wall of eslint.config.mjs (`walls`, which lint holds: a made-up `import type`
 * across each wall is linted here and must be refused). Made-up graphs show each check can fail.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

/** A file (path from the repository root, `/`-separated) → the files it imports. */
type Graph = ReadonlyMap<string, readonly string[]>;

interface Wall {
  /** A folder of src/. */
  readonly from: string;
  /** Folders or files (without `.ts`) of src/ that `from` does not import. */
  readonly to: readonly string[];
  readonly why: string;
}

/** What src/ never imports: it is imported by them. */
const OUTSIDE_THE_PRODUCT = ['tools', 'test', 'bench'];

const fromRoot = (path: string) => relative(ROOT, path).split(sep).join('/');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [fromRoot(path)] : [];
  });
}

/** `specifier`, imported by `file`, as the file it loads; undefined when none. */
function resolveImport(file: string, specifier: string): string | undefined {
  const target = resolve(ROOT, dirname(file), specifier);
  const candidates = [
    `${target}.ts`,
    join(target, 'index.ts'),
    target.replace(/\.js$/, '.ts'),
    target,
  ];
  const found = candidates.find((p) => existsSync(p) && statSync(p).isFile());
  return found === undefined ? undefined : fromRoot(found);
}

/** The relative specifiers of a module's text: imports of every kind, comments and strings aside. */
export function relativeSpecifiers(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((s) => s.startsWith('./') || s.startsWith('../') || s === '.' || s === '..');
}

/** The import graph of the files under `dir`, and the relative imports that load no file. */
function importGraph(dir: string): { graph: Graph; unresolved: string[] } {
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of sources(dir)) {
    const targets = new Set<string>();
    for (const specifier of relativeSpecifiers(readFileSync(join(ROOT, file), 'utf8'))) {
      const target = resolveImport(file, specifier);
      if (target === undefined) unresolved.push(`${file}: '${specifier}'`);
      else targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return { graph, unresolved };
}

/**
 * Every import cycle of `graph`, one per group of files that reach each other: the shortest cycle
 * through the group's first file, as `a → b → a`, then the group's other files, if any.
 */
export function importCycles(graph: Graph): string[] {
  // Tarjan's strongly connected components.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.sort().map((group) => {
    const cycle = shortestCycle(graph, group);
    const others = group.filter((f) => !cycle.includes(f));
    return cycle.join(' → ') + (others.length > 0 ? ` (tangled with ${others.join(', ')})` : '');
  });
}

/** The shortest path from the group's first file back to it, within the group. */
function shortestCycle(graph: Graph, group: readonly string[]): string[] {
  const start = group[0]!;
  const inGroup = new Set(group);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...group, start];
}

/** Where `target` (a path from the root) is inside `src/<name>` (a folder, or a file without `.ts`). */
const isIn = (target: string, name: string) =>
  target === `src/${name}.ts` || target.startsWith(`src/${name}/`);

/** The imports of `graph` that cross a wall, or leave the product for tools/, test/ or bench/. */
export function wallCrossings(graph: Graph, walls: readonly Wall[]): string[] {
  const crossings: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      for (const wall of walls) {
        if (!file.startsWith(`src/${wall.from}/`)) continue;
        const walled = wall.to.find((name) => isIn(target, name));
        if (walled) crossings.push(`${file} → ${target} (src/${wall.from}/ ↛ src/${walled})`);
      }
      const outside = OUTSIDE_THE_PRODUCT.find((dir) => target.startsWith(`${dir}/`));
      if (file.startsWith('src/') && outside)
        crossings.push(`${file} → ${target} (src/ ↛ ${outside}/)`);
    }
  }
  return crossings.sort();
}

/** The walls, as eslint.config.mjs states them for lint. */
async function configuredWalls(): Promise<readonly Wall[]> {
  const url = pathToFileURL(join(ROOT, 'eslint.config.mjs')).href;
  const config = (await import(url)) as { walls: readonly Wall[] };
  return config.walls;
}

/** The project's lint, its import rule alone (no type information needed). */
function importLint(): ESLint {
  return new ESLint({
    cwd: ROOT,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  });
}

/** What lint says of `code` at `file`: the messages of its import rule. */
async function importRefusals(eslint: ESLint, file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  const messages = result?.messages ?? [];
  assert.deepEqual(
    messages.filter((m) => m.fatal).map((m) => m.message),
    [],
    `lint could not read ${file}`,
  );
  return messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const made = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

describe('the import graph of src/', () => {
  const { graph, unresolved } = importGraph(join(ROOT, 'src'));

  it('is read whole: every relative import of src/ loads a file', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files read`);
    assert.ok(
      [...graph.values()].reduce((n, targets) => n + targets.length, 0) > graph.size,
      'no imports read',
    );
    assert.deepEqual(unresolved, []);
  });

  it('every kind of import is an edge, and comments and strings are not', () => {
    const text = [
      "import type { A } from './type-only';",
      "import {\n  b,\n  type C,\n} from '../values';",
      "export * from './everything';",
      "export type { D } from './re-exported-type';",
      "const e = require('./required') as typeof import('./import-type');",
      "// import { f } from './commented';",
      'const g = "require(\'./in-a-string\')";',
      "import { z } from 'zod';",
    ].join('\n');
    assert.deepEqual(relativeSpecifiers(text), [
      './type-only',
      '../values',
      './everything',
      './re-exported-type',
      './required',
      './import-type',
    ]);
  });

  it('has no import cycle (type-only imports count)', () => {
    assert.deepEqual(importCycles(graph), []);
  });

  it('a made-up cycle is found, named by its files', () => {
    const graphWithCycles = made({
      'src/shared/a.ts': ['src/shared/b.ts'],
      'src/shared/b.ts': ['src/shared/c.ts', 'src/shared/d.ts'],
      'src/shared/c.ts': ['src/shared/a.ts'],
      'src/shared/d.ts': ['src/shared/e.ts'],
      'src/shared/e.ts': ['src/shared/b.ts'],
      'src/shared/f.ts': ['src/shared/a.ts'],
      'src/workflows/self.ts': ['src/workflows/self.ts'],
      'src/activities/x.ts': ['src/workflows/y.ts'],
      'src/workflows/y.ts': ['src/activities/x.ts'],
    });
    assert.deepEqual(importCycles(graphWithCycles), [
      'src/activities/x.ts → src/workflows/y.ts → src/activities/x.ts',
      'src/shared/a.ts → src/shared/b.ts → src/shared/c.ts → src/shared/a.ts (tangled with src/shared/d.ts, src/shared/e.ts)',
      'src/workflows/self.ts → src/workflows/self.ts',
    ]);
    assert.deepEqual(importCycles(made({ 'src/a.ts': ['src/b.ts'], 'src/b.ts': [] })), []);
  });

  it('crosses no wall between its folders, and imports nothing of tools/, test/ or bench/', async () => {
    const walls = await configuredWalls();
    assert.ok(walls.length >= 5, 'the walls are read from eslint.config.mjs');
    assert.deepEqual(wallCrossings(graph, walls), []);
  });

  it('a made-up import across a wall, or out of the product, is found', async () => {
    const walls = await configuredWalls();
    const crossing = made({
      'src/activities/index.ts': ['src/order-events/workflows/outbox.ts', 'src/shared/price.ts'],
      'src/order-events/activities/index.ts': [
        'src/order-events/workflows/endpoint-backlog.ts',
        'src/order-events/contract/delivery.ts',
      ],
      'src/order-events/contract/event.ts': ['src/order-events/activities/post.ts'],
      'src/shared/booking-values.ts': ['src/worker.ts', 'src/config/defaults.ts'],
      'src/doctor/namespace-facts.ts': ['src/cli/tcp-probe.ts', 'src/client/connect.ts'],
      'src/cli/program.ts': ['tools/stack/main.ts'],
    });
    assert.deepEqual(wallCrossings(crossing, walls), [
      'src/activities/index.ts → src/order-events/workflows/outbox.ts (src/activities/ ↛ src/order-events/workflows)',
      'src/cli/program.ts → tools/stack/main.ts (src/ ↛ tools/)',
      'src/doctor/namespace-facts.ts → src/cli/tcp-probe.ts (src/doctor/ ↛ src/cli)',
      'src/order-events/activities/index.ts → src/order-events/workflows/endpoint-backlog.ts (src/order-events/activities/ ↛ src/order-events/workflows)',
      'src/order-events/contract/event.ts → src/order-events/activities/post.ts (src/order-events/contract/ ↛ src/order-events/activities)',
      'src/shared/booking-values.ts → src/worker.ts (src/shared/ ↛ src/worker)',
    ]);
  });

  it('lint refuses an import type across each wall, and out of the product', async () => {
    const walls = await configuredWalls();
    const eslint = importLint();
    const refusedNot: string[] = [];
    const cases = walls.flatMap((wall) =>
      wall.to.map((name) => ({
        file: `src/${wall.from}/made-up.ts`,
        code: `import type { X } from '${posix.relative(`src/${wall.from}`, `src/${name}`)}';\nexport type Y = X;\n`,
      })),
    );
    cases.push(
      ...OUTSIDE_THE_PRODUCT.map((dir) => ({
        file: 'src/observability/made-up.ts',
        code: `import type { X } from '../../${dir}/made-up';\nexport type Y = X;\n`,
      })),
      {
        // A zod-free file of src/shared/, whose lint block is its own.
        file: 'src/shared/booking-values.ts',
        code: "export type { X } from '../workflows/made-up';\n",
      },
      {
        file: 'src/doctor/deeper/made-up.ts',
        code: "import type { X } from '../../cli/made-up';\nexport type Y = X;\n",
      },
      {
        // Order events' workflows: their sandbox block carries their walls.
        file: 'src/order-events/workflows/made-up.ts',
        code: "import type { X } from '../activities/post';\nexport type Y = X;\n",
      },
      {
        // Order events' part of the configuration is a leaf, as src/config/ is.
        file: 'src/order-events/config.ts',
        code: "import type { X } from '../shared/made-up';\nexport type Y = X;\n",
      },
      {
        // The zod-free part of order events' contract, whose lint block is its own.
        file: 'src/order-events/contract/delivery.ts',
        code: "export type { X } from '../workflows/made-up';\n",
      },
    );
    for (const { file, code } of cases) {
      if ((await importRefusals(eslint, file, code)).length === 0)
        refusedNot.push(`${file}: ${code}`);
    }
    assert.deepEqual(refusedNot, []);
    // The same lint lets through what the walls allow.
    assert.deepEqual(
      await importRefusals(
        eslint,
        'src/activities/made-up.ts',
        "import type { X } from '../order-events/contract/event';\nimport { y } from './failures';\nexport type Z = X | typeof y;\n",
      ),
      [],
    );
    assert.deepEqual(
      await importRefusals(
        eslint,
        'src/order-events/activities/made-up.ts',
        "import type { X } from '../contract/delivery';\nimport { y } from '../../activities/failures';\nexport type Z = X | typeof y;\n",
      ),
      [],
    );
    assert.deepEqual(
      await importRefusals(
        eslint,
        'src/config/made-up.ts',
        "import { loadOrderEvents } from '../order-events/config';\nexport const l = loadOrderEvents;\n",
      ),
      [],
    );
    assert.deepEqual(
      await importRefusals(
        eslint,
        'src/doctor/made-up.ts',
        "import { connect } from '../client/connect';\nexport const c = connect;\n",
      ),
      [],
    );
  });
});
