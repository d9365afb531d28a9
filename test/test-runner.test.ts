/**
 * `npm test`'s runner (test/run.ts): a test file cancelled on its timeout leaves nothing running,
 * and the run exits once the summary is out, with the summary's verdict.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RunSummary } from './helpers/run-summary';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** The environment of a run of its own (node's runner skips files when it sees its own context). */
function withoutTestContext(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...rest } = env;
  return rest;
}

describe('the test runner', () => {
  it('reads the verdict from the summary', () => {
    const passed = new RunSummary();
    assert.equal(passed.add('ℹ tests 3\nℹ pass 3\nℹ fail 0\nℹ cancelled 0\n'), false);
    assert.equal(passed.add('ℹ skipped 0\nℹ duration_ms 12.5\n'), true);
    assert.equal(passed.exitCode(), 0);
    const cancelled = new RunSummary();
    cancelled.add('ℹ tests 1\nℹ pass 0\nℹ fail 0\nℹ canc');
    assert.equal(
      cancelled.add('elled 1\nℹ duration_ms 3000\n'),
      true,
      'a line split across chunks',
    );
    assert.equal(cancelled.exitCode(), 1);
  });

  it('runs the test files of a folder it is given, and names a path that is neither in one line, exit 2', async () => {
    const run = (arg: string) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'run.ts'), arg], {
          cwd: join(__dirname, '..'),
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...withoutTestContext(process.env),
            TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
          },
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.once('exit', (code) => resolve({ code, out }));
      });
    const [missing, folder] = await Promise.all([run('test/no-such-folder'), run('test/house')]);
    assert.equal(missing.code, 2, missing.out);
    assert.equal(missing.out.trim(), 'npm test: no such test file or folder: test/no-such-folder');
    assert.equal(folder.code, 0, folder.out.slice(-2000));
    const inFolder = readdirSync(join(__dirname, 'house')).filter((f) => f.endsWith('.test.ts'));
    assert.match(folder.out, new RegExp(`\\[test-run\\] ${inFolder.length} test files`));
  });

  it('exits after a file cancelled on its timeout, and stops what that file left running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hbo-runner-'));
    const pidFile = join(dir, 'child.pid');
    try {
      const started = Date.now();
      const run = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(__dirname, 'run.ts'),
          join(__dirname, 'fixtures', 'hung-child.fixture.ts'),
        ],
        {
          cwd: join(__dirname, '..'),
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...withoutTestContext(process.env),
            TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
            TEST_TIMEOUT_MS: '3000',
            HUNG_CHILD_PID_FILE: pidFile,
          },
        },
      );
      let out = '';
      run.stdout.on('data', (d: Buffer) => (out += d.toString()));
      run.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => run.kill('SIGKILL'), 120_000);
        run.once('exit', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      assert.equal(code, 1, `the cancelled test fails the run:\n${out}`);
      assert.match(out, /ℹ cancelled 1/);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.equal(alive(pid), false, `the file's child ${pid} was stopped`);
      assert.ok(Date.now() - started < 100_000, 'the run ended soon after its summary');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
