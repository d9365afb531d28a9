/**
 * The Temporal a surface runs its orders on: the run's (`TEMPORAL_ADDRESS` and the variables that
 * secure it, as `npm test` sets them), else a dev server of its own, which `stop()` stops.
 */
import { startDevServer } from '../temporal-server/dev-server';

export interface SurfaceTemporal {
  readonly address: string;
  /** The `TEMPORAL_*` variables (and `WORKFLOW_BUNDLE_PATH`) a worker's configuration takes. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export async function surfaceTemporal(): Promise<SurfaceTemporal> {
  const given = process.env.TEMPORAL_ADDRESS;
  if (given) {
    const env = Object.entries(process.env).filter(
      ([k, v]) => (k.startsWith('TEMPORAL_') || k === 'WORKFLOW_BUNDLE_PATH') && v !== undefined,
    ) as [string, string][];
    return { address: given, env: Object.fromEntries(env), stop: async () => {} };
  }
  const server = await startDevServer({ headless: true });
  return {
    address: server.address,
    env: { TEMPORAL_ADDRESS: server.address },
    stop: () => server.stop(),
  };
}
