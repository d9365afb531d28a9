/**
 * The cluster a drill runs on (the fleet and node drills): its own task queue and payload key,
 * `npm run cluster`'s stack with latency on every supplier call (so disruptions land while calls
 * are in flight), counted among the open stacks so that Ctrl-C stops it too.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { loadCodecServerConfig } from '../../src/config/codec';
import { loadConfig, parseEnv } from '../../src/config';
import type { TemporalRelease } from '../../src/shared/temporal-releases';
import { startClusterStack, type ClusterStack } from '../stack/cluster-stack';
import { trackOpenStack } from './chaos-stack';

export interface DrillCluster {
  readonly stack: ClusterStack;
  /** The run's name: its task queue and the prefix of its order ids. */
  readonly run: string;
  /** Stops the stack (and forgets it). */
  stop(): Promise<void>;
}

export async function startDrillCluster(o: {
  /** `fleet`, `nodes`: the run's name starts with it. */
  readonly kind: string;
  readonly workers: number;
  readonly nodes?: number;
  readonly basePort: number;
  readonly dataDir: string;
  readonly seed?: number | undefined;
  readonly workerEnv?: Readonly<Record<string, string>>;
  /** The Temporal release it starts on. @default the selected one (the newest) */
  readonly release?: TemporalRelease;
  readonly log: (line: string) => void;
}): Promise<DrillCluster> {
  const run = `${o.kind}-${randomUUID().slice(0, 6)}`;
  const env = {
    TEMPORAL_TASK_QUEUE: run,
    PAYLOAD_ENCRYPTION_KEYS: `${o.kind}:${randomBytes(32).toString('base64')}`,
  };
  const stack = await startClusterStack({
    workers: o.workers,
    ...(o.nodes ? { nodes: o.nodes } : {}),
    basePort: o.basePort,
    dataDir: o.dataDir,
    config: loadConfig(env),
    codecServer: loadCodecServerConfig(parseEnv(env)),
    simulator: { latency: { minMs: 50, maxMs: 200 }, seed: o.seed ?? 7 },
    ...(o.workerEnv ? { workerEnv: o.workerEnv } : {}),
    ...(o.release ? { release: o.release } : {}),
    log: o.log,
  });
  const untrack = trackOpenStack({ close: () => stack.stop() });
  return {
    stack,
    run,
    stop: async () => {
      untrack();
      await stack.stop();
    },
  };
}
