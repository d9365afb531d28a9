/**
 * The image is the whole product: every command the docs tell an operator to run in a container
 * (`docker compose exec|run <service> …`, `docker run <image> …`) is one the runtime image holds,
 * checked without a Docker engine against the Dockerfile, the compiled sources and the CLI itself:
 * `hotel-booking <command>` (on PATH in the image, running dist/starter.js) with a command the CLI
 * knows, or `node dist/<file>.js` compiled from src/ — never `npm run`, `tsx` or `src/`, which
 * the runtime image does not have. And every variable of the configuration can reach the worker
 * and the codec server of docker compose (an env file beside it, never committed).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../../src/cli/program';
import { ExitCode } from '../../src/cli/exit-codes';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The product's runtime stage of the Dockerfile. */
function runtimeStage(): string {
  const dockerfile = read('Dockerfile');
  const start = dockerfile.indexOf('AS runtime');
  assert.ok(start > 0, 'the Dockerfile has a runtime stage');
  return dockerfile.slice(start);
}

/** Every command the docs and the README run in a container of the product's image. */
function documentedContainerCommands(): { where: string; command: string[] }[] {
  const files = [
    'README.md',
    'docker-compose.yml',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const found: { where: string; command: string[] }[] = [];
  const ours = new Set(['worker', 'codec-server']);
  for (const file of files) {
    const text = read(file).replace(/\\\n\s*/g, ' ');
    for (const m of text.matchAll(
      /docker compose (?:exec|run)((?: -{1,2}[\w-]+(?:=\S+)?)*) ([\w-]+) ([^`\n]+)/g,
    )) {
      if (ours.has(m[2]!)) found.push({ where: file, command: m[3]!.trim().split(/\s+/) });
    }
    for (const m of text.matchAll(
      /docker run [^`\n]*?hotel-booking-orchestrator(?::\S+)? ([^`\n]+)/g,
    )) {
      found.push({ where: file, command: m[1]!.trim().split(/\s+/) });
    }
  }
  return found;
}

/** Runs the CLI in-process on `args`, capturing its output. */
async function cli(args: string[]) {
  let out = '';
  const code = await runCli(args, {
    io: {
      stdout: (s: string) => {
        out += s;
      },
      stderr: (s: string) => {
        out += s;
      },
    },
    loadConfig: () => {
      throw new Error('no configuration in this test');
    },
  });
  return { code, out };
}

/** Whether the CLI has the command: its own help answers (commander's root help otherwise). */
async function isCommand(word: string): Promise<boolean> {
  const { code, out } = await cli([word, '--help']);
  return code === ExitCode.OK && new RegExp(`^Usage: hotel-booking ${word}\\b`, 'm').test(out);
}

describe('the image is the whole product', () => {
  it('puts the command-line tool on PATH, running the compiled starter', () => {
    const stage = runtimeStage();
    assert.match(stage, /COPY bin \.\/bin/);
    assert.match(stage, /COPY --from=build \/app\/dist \.\/dist/);
    assert.match(stage, /ln -s \/app\/bin\/hotel-booking\.js \/usr\/local\/bin\/hotel-booking/);
    // Without sources it runs dist/starter.js, compiled from src/starter.ts.
    assert.match(read('bin/hotel-booking.js'), /dist', 'starter\.js'/);
    assert.ok(existsSync(join(ROOT, 'src', 'starter.ts')));
    assert.deepEqual(JSON.parse(read('tsconfig.build.json')).include, ['src']);
  });

  it('every container command in the docs is one the runtime image holds', async () => {
    const commands = documentedContainerCommands();
    assert.ok(commands.length >= 2, `found ${commands.length} documented container commands`);
    for (const { where, command } of commands) {
      const [program, ...args] = command;
      const what = `${where}: ${command.join(' ')}`;
      assert.ok(!['npm', 'npx', 'tsx'].includes(program!), `${what}: not in the runtime image`);
      assert.ok(!command.some((a) => a.startsWith('src/')), `${what}: no sources in the image`);
      if (program === 'node') {
        const file = args.find((a) => a.endsWith('.js')) ?? '';
        assert.ok(file.startsWith('dist/'), `${what}: a compiled file`);
        const source = join(ROOT, 'src', file.slice('dist/'.length).replace(/\.js$/, '.ts'));
        assert.ok(existsSync(source), `${what}: compiled from ${source}`);
        continue;
      }
      assert.equal(program, 'hotel-booking', `${what}: the image runs hotel-booking or node`);
      const [word] = args.filter((a) => !a.startsWith('-'));
      if (word) assert.ok(await isCommand(word), `${what}: hotel-booking has no command ${word}`);
    }
  });

  it('an unknown command is told apart (the check above can fail)', async () => {
    assert.equal(await isCommand('list'), true);
    assert.equal(await isCommand('no-such-command'), false);
  });

  it('every variable of the configuration can reach the worker and the codec server of docker compose', () => {
    const compose = parse(read('docker-compose.yml')) as {
      services: Record<string, { env_file?: { path: string; required?: boolean }[] }>;
    };
    for (const name of ['worker', 'codec-server']) {
      const envFile = compose.services[name]?.env_file;
      assert.deepEqual(
        envFile,
        [{ path: './hotel-booking.env', required: false }],
        `${name} reads hotel-booking.env when it exists`,
      );
    }
    assert.match(read('.gitignore'), /^hotel-booking\.env$/m, 'never committed');
    assert.match(read('docs/deploying.md'), /hotel-booking\.env/, 'the docs say how');
  });
});
