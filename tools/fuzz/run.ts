/**
 * `npm run fuzz`: the hostile-input campaign over the surfaces it covers so far, seeded and
 * bounded, loopback only; prints the figure (docs/fuzzing.md) and exits 1 on any defect.
 *   npm run fuzz -- [--seed N] [--count N per surface] [--seconds N per surface] [--surface a,b]
 */
import { configurationSurface } from './configuration';
import { codecServerSurface } from './codec-server';
import { cliSurface } from './cli';
import { ordersSurface } from './orders';
import { supplierSurface } from './supplier';
import { orderEventEndpointsSurface } from './order-event-endpoints';
import { defects, figure, type Surface, type Tally } from './campaign';

export const SURFACES: readonly Surface[] = [
  configurationSurface,
  codecServerSurface,
  cliSurface,
  ordersSurface,
  supplierSurface,
  orderEventEndpointsSurface,
];

export async function campaign(options: {
  seed: number;
  count: number;
  seconds: number;
  surfaces?: readonly string[];
}): Promise<Tally[]> {
  const tallies: Tally[] = [];
  for (const surface of SURFACES) {
    if (options.surfaces && !options.surfaces.includes(surface.name)) continue;
    const until = Date.now() + options.seconds * 1000;
    tallies.push(await surface.run({ seed: options.seed, count: options.count, until }));
  }
  return tallies;
}

function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: readonly string[]): Promise<number> {
  const number = (name: string, fallback: number) => {
    const raw = flag(args, name);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name}: a whole number, got ${raw}`);
    return n;
  };
  const seed = number('seed', Date.now() % 1_000_000);
  const names = flag(args, 'surface')?.split(',');
  const unknown = names?.filter((n) => !SURFACES.some((s) => s.name === n));
  if (unknown?.length)
    throw new Error(
      `--surface: unknown ${unknown.join(', ')} (${SURFACES.map((s) => s.name).join(', ')})`,
    );
  const tallies = await campaign({
    seed,
    count: number('count', 5_000),
    seconds: number('seconds', 120),
    ...(names ? { surfaces: names } : {}),
  });
  console.log(`fuzz campaign, seed ${seed} (again: npm run fuzz -- --seed ${seed})\n`);
  console.log(figure(tallies));
  for (const t of tallies) for (const e of t.examples) console.log(`${t.surface}: ${e}`);
  return tallies.some((t) => defects(t) > 0) ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(2);
    },
  );
}
