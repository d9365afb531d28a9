/**
 * The bench's CPU reading of a process tree (PostgreSQL: a postmaster and a backend per
 * connection), from /proc of real processes, and the per-workflow arithmetic of a window.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { cpuSeconds, statFields, treeCpuSeconds } from '../bench/shared/processes';
import { msPerWorkflow } from '../bench/throughput/throughput';

/** A shell loop that keeps one core busy for a while (a few hundred ms here). */
const BURN = 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done';

/** Live processes whose parent is `pid`: pid and whether it is a `sleep`. */
function children(pid: number): { pid: number; sleep: boolean }[] {
  const out: { pid: number; sleep: boolean }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(statFields(name)?.[1]) !== pid) continue;
    try {
      out.push({
        pid: Number(name),
        sleep: readFileSync(`/proc/${name}/comm`, 'utf8') === 'sleep\n',
      });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

describe('bench process CPU', () => {
  it("a tree counts its live descendants' CPU and that of the ones that ended", async () => {
    // The root only waits: its first child burns and ends, its second burns and then sleeps.
    const root = spawn('sh', ['-c', `sh -c '${BURN}'; sh -c '${BURN}; exec sleep 30'`], {
      stdio: 'ignore',
    });
    try {
      const pid = root.pid!;
      const deadline = Date.now() + 60_000;
      while (!children(pid).some((c) => c.sleep)) {
        assert.ok(Date.now() < deadline, 'the second child did not reach its sleep in 60 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      const own = cpuSeconds(pid);
      const live = children(pid).reduce((sum, c) => sum + cpuSeconds(c.pid), 0);
      const tree = treeCpuSeconds(pid);
      assert.ok(live >= 0.05, `the live child burned (${live} s)`);
      assert.ok(own < live / 2, `the root itself only waits (${own} s)`);
      // The ended child burned as much as the live one: the tree holds both.
      assert.ok(tree > own + 1.5 * live, `tree ${tree} s, root ${own} s, live child ${live} s`);
    } finally {
      root.kill('SIGKILL');
    }
  });

  it('no such process: NaN', () => {
    assert.ok(Number.isNaN(treeCpuSeconds(2 ** 22 + 7)));
  });

  it('ms per workflow, by process and all', () => {
    assert.deepEqual(msPerWorkflow({ server: 1.5, worker: 0.5 }, 50), {
      server: 30,
      worker: 10,
      all: 40,
    });
  });
});
