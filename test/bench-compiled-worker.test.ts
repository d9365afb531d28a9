/**
 * The bench's worker is compiled JavaScript on plain node (bench/shared/compiled-worker.ts): compiled once
 * per change of the sources into the cache, and the compiled child starts without tsx.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ChildHandle } from '../bench/shared/child-ipc';
import { compiledBenchWorker, sourceHash } from '../bench/shared/compiled-worker';

const ROOT = join(__dirname, '..');

describe('the compiled bench worker', () => {
  const dirs: string[] = [];
  const tmp = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `hbo-${name}-`));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is named after its sources: the same sources the same name, a changed source another', () => {
    const root = tmp('sources');
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'bench'));
    for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) {
      cpSync(join(ROOT, f), join(root, f));
    }
    cpSync(
      join(ROOT, 'bench', 'tsconfig.worker.json'),
      join(root, 'bench', 'tsconfig.worker.json'),
    );
    cpSync(join(ROOT, 'src', 'build-worker.ts'), join(root, 'src', 'build-worker.ts'));
    const first = sourceHash(root);
    assert.equal(sourceHash(root), first);
    writeFileSync(join(root, 'bench', 'results.json'), '{}');
    assert.equal(sourceHash(root), first, 'results files are not sources');
    writeFileSync(join(root, 'src', 'build-worker.ts'), '// changed\n', { flag: 'a' });
    assert.notEqual(sourceHash(root), first);
  });

  it('is compiled once, then reused, and its child starts on plain node', async () => {
    const env = { ...process.env, XDG_CACHE_HOME: tmp('cache') };
    const lines: string[] = [];
    const compiled = await compiledBenchWorker((l) => lines.push(l), env);
    assert.match(compiled.module, /bench-worker\/[0-9a-f]{16}\/bench\/shared\/worker-child\.js$/);
    assert.ok(lines.some((l) => l.includes('compiled in')));
    lines.length = 0;
    assert.deepEqual(await compiledBenchWorker((l) => lines.push(l), env), compiled);
    assert.ok(lines.some((l) => l.includes('up to date')));
    const child = await ChildHandle.fork(compiled.module, [], compiled.env);
    try {
      const memory = await child.request<NodeJS.MemoryUsage>('memory');
      assert.ok(memory.rss > 0);
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      assert.ok(!argv.some((a) => a.includes('tsx')), `no TypeScript runtime: ${argv.join(' ')}`);
    } finally {
      await child.stop();
    }
  });
});
