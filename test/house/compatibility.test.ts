/**
 * The registry of earlier versions (src/shared/compatibility.ts) is the one place for them: every
 * `patched()` in the workflows asks one of its ids (no id written as a string there),
 * docs/earlier-versions.md names each entry and its deletion query and no patch it lacks, and the
 * files each entry keeps exist.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMPATIBILITY, Patch } from '../../src/shared/compatibility';

const ROOT = join(__dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'earlier-versions.md'), 'utf8').replace(/\s+/g, ' ');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The `patched(…)`/`deprecatePatch(…)` calls of `text` that do not take an id of the registry. */
export function unregisteredPatches(text: string): string[] {
  return [...text.matchAll(/\b(?:patched|deprecatePatch)\(([^)]*)\)/g)]
    .map((m) => m[1]!.trim())
    .filter((arg) => !/^Patch\.[A-Z_]+$/.test(arg));
}

describe('the registry of earlier versions', () => {
  it('every patched() of the workflows asks an id of the registry', () => {
    const workflows = [join('src', 'workflows'), join('src', 'order-events', 'workflows')];
    const found = workflows
      .flatMap((dir) => sources(join(ROOT, dir)))
      .flatMap((f) =>
        unregisteredPatches(
          // Comments may quote an id; code may not.
          readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
        ).map((a) => `${f}: patched(${a})`),
      );
    assert.deepEqual(found, []);
    assert.deepEqual(
      unregisteredPatches("patched('made-up') || patched(Patch.ONE_TASK_PER_STEP)"),
      ["'made-up'"],
    );
  });

  it('docs/earlier-versions.md names every entry, its deletion query, and no patch the registry lacks', () => {
    for (const e of COMPATIBILITY) {
      assert.ok(DOC.includes(e.id), `earlier-versions.md does not name ${e.id}`);
      if (e.deleteWhen)
        assert.ok(DOC.includes(e.deleteWhen), `no query for ${e.id}: ${e.deleteWhen}`);
    }
    const ids = new Set<string>(Object.values(Patch));
    const named = [...DOC.matchAll(/patched\('([a-z-]+)'\)/g)].map((m) => m[1]!);
    assert.deepEqual(
      named.filter((id) => !ids.has(id)),
      [],
    );
  });

  it('the files each entry keeps exist', () => {
    const paths = COMPATIBILITY.flatMap((e) =>
      e.code.flatMap((c) => [...c.matchAll(/src\/[\w/.-]+\.ts/g)].map((m) => m[0])),
    );
    assert.ok(paths.length > 5);
    assert.deepEqual(
      paths.filter((p) => !existsSync(join(ROOT, p))),
      [],
    );
  });
});
