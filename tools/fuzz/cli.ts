/**
 * The command line, fuzzed in-process: every command with hostile options and arguments, against
 * a configuration whose Temporal and supplier are closed loopback ports. Each run must end with a
 * documented exit code (0 ok, 1 failed, 2 bad usage or input, 3 unreachable) within the deadline,
 * say why on stderr without a stack trace, and never print the supplier's secret.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { runCli } from '../../src/cli/program';
import { loadConfig } from '../../src/config';
import {
  defect,
  HOSTILE_TEXT,
  tally,
  type CampaignOptions,
  type Surface,
  type Tally,
} from './campaign';

const SECRET = 'fuzz-supplier-secret-5d2f0c';
const DEADLINE_MS = 15_000;
const COMMANDS = [
  ['book'],
  ['cancel'],
  ['search'],
  ['status'],
  ['approve'],
  ['reject'],
  ['keep'],
  ['resolve'],
  ['list'],
  ['content', 'list'],
  ['content', 'show'],
  ['content', 'static'],
  ['content', 'sync'],
  ['content', 'search'],
  ['doctor'],
  ['doctor', 'namespace'],
  ['events', 'list'],
  ['events', 'redeliver'],
  ['generate', 'payload-key'],
  ['generate', 'codec-token'],
  ['replay'],
  ['setup'],
  ['nonsense'],
  [],
] as const;
const OPTIONS = [
  '--order',
  '--option',
  '--guest',
  '--phone-prefix',
  '--phone',
  '--email',
  '--wait',
  '--json',
  '--property',
  '--checkin',
  '--checkout',
  '--occupancy',
  '--booking-id',
  '--poll-interval',
  '--phase',
  '--country',
  '--language',
  '--city',
  '--min-stars',
  '--reason',
  '--accept-penalty',
  '--days',
  '--limit',
  '--book',
  '--help',
  '--version',
  '--',
  '-x',
  '--order=',
];

/** A port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const word = fc.oneof(
  fc.constantFrom(
    ...HOSTILE_TEXT.filter((t) => t.length < 1000),
    'ord-1',
    '2027-05-10',
    '1001',
    '2',
    '+39',
    '3331234567',
    'CONFIRMED',
    'IT',
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer().map(String),
);
const argv = fc
  .tuple(
    fc.constantFrom(...COMMANDS),
    fc.array(fc.oneof(fc.constantFrom(...OPTIONS), word), { maxLength: 8 }),
  )
  .map(([command, rest]) => [...command, ...rest]);

async function judge(
  t: Tally,
  args: string[],
  config: ReturnType<typeof loadConfig>,
): Promise<void> {
  const input = JSON.stringify(args).slice(0, 300);
  let out = '';
  const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (out += s) };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), DEADLINE_MS)));
  let code: number | 'late';
  try {
    code = await Promise.race([runCli(args, { io, loadConfig: () => config }), late]);
  } catch (err) {
    defect(t, 'crashes', input, `threw: ${String(err).slice(0, 200)}`);
    return;
  } finally {
    clearTimeout(timer);
  }
  if (code === 'late') return defect(t, 'stuck', input, `no exit within ${DEADLINE_MS} ms`);
  if (out.includes(SECRET)) defect(t, 'leaks', input, 'the supplier secret printed');
  if (![0, 1, 2, 3].includes(code)) defect(t, 'unclear', input, `exit ${code}`);
  else if (/\n\s+at .+:\d+:\d+/.test(out))
    defect(t, 'unclear', input, `a stack trace: ${out.slice(0, 200)}`);
  else if (code !== 0 && out.trim() === '')
    defect(t, 'unclear', input, `exit ${code} saying nothing`);
}

export const cliSurface: Surface = {
  name: 'cli',
  async run({ seed, count, until }: CampaignOptions) {
    const t = tally('cli', {});
    const [temporal, supplier] = [await closedPort(), await closedPort()];
    const dir = mkdtempSync(join(tmpdir(), 'fuzz-cli-'));
    const config = loadConfig({
      TEMPORAL_ADDRESS: `127.0.0.1:${temporal}`,
      HOTEL_API_BASE_URL: `http://127.0.0.1:${supplier}`,
      HOTEL_API_KEY: 'fuzz-key',
      HOTEL_API_SECRET: SECRET,
      CATALOGUE_DB_PATH: join(dir, 'catalogue.db'),
    });
    try {
      for (const args of fc.sample(argv, { seed, numRuns: count })) {
        if (Date.now() > until) break;
        t.inputs += 1;
        await judge(t, args, config);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return t;
  },
};
