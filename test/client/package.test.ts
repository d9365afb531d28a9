/**
 * The client as an order system installs it (packages/client/README.md): `npm run build:client`
 * compiles it, `npm pack` makes the tarball, and npm installs that into a project of its own,
 * outside the checkout, offline from the npm cache. There it lists only the client's dependencies,
 * its types compile, and a plain Node script books an order through it on this run's Temporal
 * server, taken by a real booking worker against the simulator.
 *
 * Offline: npm's cache holds the tarballs the repository installed, by integrity, but not the
 * registry's package documents that resolving `@temporalio/client@1.24.0` afresh would ask for.
 * So the project starts with a package-lock.json holding the client's dependency closure as the
 * repository's own package-lock.json has it (same versions, same integrity); npm then installs
 * the tarball with `--offline`, taking every dependency from the cache, and fails (ENOTCACHED)
 * rather than reach a registry if one is missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { DEV_KEY_ID, developmentKey } from '../../src/config/codec';
import {
  bookingInput,
  startBookingStack,
  supplierBookings,
  type BookingStack,
} from '../helpers/booking-stack';
import { temporalAddress } from '../helpers/temporal';

const execFileAsync = promisify(execFile);

const REPO = join(__dirname, '..', '..');
const PACKAGE_NAME = '@hotel-booking-orchestrator/client';
/** What the compiled files require, and nothing else: no worker, no undici, no tools. */
const EXPECTED_DEPENDENCIES = [
  '@temporalio/client',
  '@temporalio/common',
  '@temporalio/proto',
  '@temporalio/workflow',
  'zod',
];
/**
 * The folders of src/ the package compiles (src/client/ and exactly what it imports): of
 * order-events/, its contract and configuration (the required modules below hold that no
 * activity of it ships).
 */
const SHIPPED_FOLDERS = ['client', 'shared', 'config', 'codec', 'order-events'];
/** Build, pack and install together take about 10 s on 2 cores; well past that is a regression. */
const PACKAGE_STEPS_BUDGET_MS = 60_000;

interface LockEntry {
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly [field: string]: unknown;
}
type LockPackages = Record<string, LockEntry>;

const rootLock = (): LockPackages =>
  (JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: LockPackages })
    .packages;

/**
 * The entries of the repository's lock that `dependencies` need, at the places npm put them
 * (a dependency resolves to the nearest `node_modules/<name>` up from its dependent, as in Node).
 */
function dependencyClosure(lock: LockPackages, dependencies: readonly string[]): LockPackages {
  const resolve = (from: string, name: string): string | undefined => {
    for (let at = from; ;) {
      const path = `${at === '' ? '' : `${at}/`}node_modules/${name}`;
      if (lock[path]) return path;
      if (at === '') return undefined;
      const parent = at.lastIndexOf('/node_modules/');
      at = parent < 0 ? '' : at.slice(0, parent);
    }
  };
  const picked: LockPackages = {};
  const queue: Array<[from: string, name: string]> = dependencies.map((name) => ['', name]);
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, name] = next;
    const path = resolve(from, name);
    if (!path) throw new Error(`${name} (needed by ${from || 'the package'}) is not in the lock`);
    if (picked[path]) continue;
    // Development flags are the repository's view; in the order system these are its runtime.
    const { dev: _dev, devOptional: _devOptional, ...entry } = lock[path]!;
    picked[path] = entry as LockEntry;
    const needs = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...entry.peerDependencies,
    };
    for (const dependency of Object.keys(needs)) queue.push([path, dependency]);
  }
  return picked;
}

/** Runs `file` and returns its stdout; a failure carries its stderr. */
async function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const { stderr, stdout } = err as { stderr?: string; stdout?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stderr ?? ''}${stdout ?? ''}`, {
      cause: err,
    });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Compiles against the package as an order system would: strict, Node 16+ module resolution. */
const ORDER_SYSTEM_TYPES = `import {
  BookingClient,
  BookingInputError,
  connectBookingClient,
  createDataConverter,
  loadConfig,
  type BookRoomInput,
  type BookingOutcome,
} from '${PACKAGE_NAME}';

export async function book(input: BookRoomInput): Promise<BookingOutcome | string[]> {
  const config = loadConfig(process.env, { requireSupplierCredentials: false });
  const { bookings, close } = await connectBookingClient(config);
  try {
    await bookings.startBooking(input);
    const decision = await bookings.result(input.orderId);
    const cancelled = await bookings.cancelOrder(input.orderId, { reason: 'the guest cancelled' });
    return cancelled.kind === 'requested' ? decision.outcome : [cancelled.state.phase];
  } catch (err) {
    if (err instanceof BookingInputError) return err.issues.map((issue) => issue.field);
    throw err;
  } finally {
    await close();
  }
}

export const converter = (config: ReturnType<typeof loadConfig>) =>
  createDataConverter(config.encryption).payloadCodecs?.length;
export const clientClass: typeof BookingClient = BookingClient;
// @ts-expect-error the contract's outcomes are a union, not any string
export const wrong: BookingOutcome = 'MAYBE';
`;

/** Books one order through the installed package, as an ES module order system would. */
const ORDER_SYSTEM_SCRIPT = `import { connectBookingClient, loadConfig } from '${PACKAGE_NAME}';

const input = JSON.parse(process.argv[2]);
const { bookings, close } = await connectBookingClient(
  loadConfig(process.env, { requireSupplierCredentials: false }),
);
try {
  const started = await bookings.startBooking(input);
  const decision = await bookings.result(input.orderId);
  console.log(JSON.stringify({ status: started.status, decision }));
} finally {
  await close();
}
`;

interface Installed {
  readonly dir: string;
  /** The installed package's folder. */
  readonly packageDir: string;
  readonly tarballFiles: readonly string[];
}

/** Builds and packs the package, and installs the tarball into a new project in `dir`. */
async function buildPackInstall(dir: string): Promise<Installed> {
  const started = Date.now();
  await run('npm', ['run', '--silent', 'build:client'], { cwd: REPO });
  const built = Date.now();
  const packed = JSON.parse(
    await run('npm', ['pack', './packages/client', '--pack-destination', dir, '--json'], {
      cwd: REPO,
    }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = packed[0]!;
  const packedAt = Date.now();

  const manifest = JSON.parse(readFileSync(join(REPO, 'packages/client/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const project = { name: 'order-system', version: '1.0.0', private: true };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(project, null, 2));
  const lock = {
    ...project,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': project,
      ...dependencyClosure(rootLock(), Object.keys(manifest.dependencies)),
    },
  };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
  await run(
    'npm',
    [
      'install',
      '--offline',
      '--no-audit',
      '--no-fund',
      `./${tarball.filename.replace(/^.*\//, '')}`,
    ],
    { cwd: dir },
  );
  const installed = Date.now();
  console.log(
    `# client package: build ${seconds(built - started)}, pack ${seconds(packedAt - built)}, ` +
      `install ${seconds(installed - packedAt)} (offline, from the npm cache); ` +
      `${seconds(installed - started)} in all`,
  );
  assert.ok(
    installed - started < PACKAGE_STEPS_BUDGET_MS,
    `build, pack and install took ${seconds(installed - started)}`,
  );
  return {
    dir,
    packageDir: join(dir, 'node_modules', ...PACKAGE_NAME.split('/')),
    tarballFiles: tarball.files.map((f) => f.path),
  };
}

/** Every JavaScript file under `dir`, recursively. */
function javaScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the client package an order system installs', () => {
  let scratch: string;
  let installed: Installed;
  let s: BookingStack;
  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'hbo-order-system-'));
    // Both at once; the stack is kept (and so stopped in after()) even when the build fails.
    const [packaged, stack] = await Promise.allSettled([
      buildPackInstall(scratch),
      startBookingStack('client-package'),
    ]);
    if (stack.status === 'fulfilled') s = stack.value;
    if (packaged.status === 'rejected') throw packaged.reason;
    if (stack.status === 'rejected') throw stack.reason;
    installed = packaged.value;
  });
  after(async () => {
    await s?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('depends on the Temporal client, common, proto and workflow packages and zod only, at the versions of the repository lock', () => {
    const manifest = JSON.parse(
      readFileSync(join(installed.packageDir, 'package.json'), 'utf8'),
    ) as {
      name: string;
      version: string;
      dependencies: Record<string, string>;
    };
    const root = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.equal(manifest.name, PACKAGE_NAME);
    assert.equal(manifest.version, root.version);
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), EXPECTED_DEPENDENCIES);
    const lock = rootLock();
    for (const [name, version] of Object.entries(manifest.dependencies)) {
      assert.equal(version, lock[`node_modules/${name}`]?.version, `${name} is pinned as locked`);
    }
    const modules = join(installed.dir, 'node_modules');
    for (const absent of ['@temporalio/worker', '@temporalio/core-bridge', 'undici']) {
      assert.equal(existsSync(join(modules, absent)), false, `${absent} is not installed`);
    }
  });

  it('ships compiled client, shared, config and codec modules, and requires only its dependencies', () => {
    const outside = installed.tarballFiles.filter(
      (path) =>
        !['package.json', 'README.md'].includes(path) &&
        !path.startsWith('dist/packages/client/src/') &&
        !SHIPPED_FOLDERS.some((folder) => path.startsWith(`dist/src/${folder}/`)),
    );
    assert.deepEqual(outside, []);
    assert.ok(installed.tarballFiles.includes('dist/src/client/booking-client.d.ts'));
    assert.ok(installed.tarballFiles.includes('dist/src/codec/failure-converter.js'));
    assert.equal(
      installed.tarballFiles.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
        .length,
      0,
    );
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const required = new Set<string>();
    for (const file of javaScriptFiles(join(installed.packageDir, 'dist'))) {
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/require\("([^"]+)"\)/g)) {
        if (!specifier!.startsWith('.') && !builtins.has(specifier!)) {
          required.add(
            specifier!
              .split('/')
              .slice(0, specifier!.startsWith('@') ? 2 : 1)
              .join('/'),
          );
        }
      }
      assert.doesNotMatch(relative(installed.packageDir, file), /workflows|activities|hotel-api/);
    }
    assert.deepEqual([...required].sort(), EXPECTED_DEPENDENCIES);
  });

  it("type-checks in the order system's project", async () => {
    writeFileSync(join(installed.dir, 'order-system.ts'), ORDER_SYSTEM_TYPES);
    writeFileSync(
      join(installed.dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'node16',
          moduleResolution: 'node16',
          types: ['node'],
          noEmit: true,
          // The Temporal SDK's own declarations need it (they name `ms` and `source-map` types).
          skipLibCheck: true,
        },
        files: ['order-system.ts'],
      }),
    );
    await run(join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', installed.dir], {
      cwd: installed.dir,
    });
  });

  it('books an order to CONFIRMED from a Node script that imports the installed package', async () => {
    writeFileSync(join(installed.dir, 'book.mjs'), ORDER_SYSTEM_SCRIPT);
    const input = bookingInput('instant');
    // The stack's worker reads payloads with the development key (testDataConverter): the
    // order system names the same key by its id and material, as it would name production keys.
    const key = developmentKey().key.export().toString('base64');
    const { PAYLOAD_ENCRYPTION_KEYS_FILE: _file, ...env } = process.env;
    const stdout = await run('node', ['book.mjs', JSON.stringify(input)], {
      cwd: installed.dir,
      env: {
        ...env,
        TEMPORAL_ADDRESS: temporalAddress(),
        TEMPORAL_NAMESPACE: 'default',
        TEMPORAL_TASK_QUEUE: s.taskQueue,
        PAYLOAD_ENCRYPTION_KEYS: `${DEV_KEY_ID}:${key}`,
      },
      timeoutMs: 60_000,
    });
    const answer = JSON.parse(stdout) as {
      status: string;
      decision: { outcome: string; bookingId?: number };
    };
    assert.equal(answer.status, 'STARTED');
    assert.equal(answer.decision.outcome, 'CONFIRMED');
    // The repository's own client reads what the package's client wrote: one converter.
    const decision = await s.bookings.result(input.orderId);
    assert.equal(decision.bookingId, answer.decision.bookingId);
    assert.equal(supplierBookings(s, input.orderId).length, 1);
  });
});
