/**
 * The balancer in front of several nodes' frontends: nginx's TCP `stream` proxy (Debian's `nginx`
 * with `libnginx-mod-stream`), as Temporal's own multi-role compose example puts nginx in front.
 * It passes bytes through, so mTLS stays end to end: the client's certificate reaches a frontend.
 * A connection goes to the next frontend when one refuses it (a dead node); a gRPC connection
 * lives long, so each client stays on one frontend until that connection breaks.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ClusterError } from './cluster-error';

const execFileAsync = promisify(execFile);

/** Where Debian installs the stream module (loaded by our own config, not /etc/nginx's). */
const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

export interface BalancerConfigInput {
  readonly listenPort: number;
  readonly upstreamPorts: readonly number[];
  /** Where nginx keeps its pid file and logs. */
  readonly dir: string;
  /** The stream module to load, when nginx has it as a dynamic module. */
  readonly streamModule?: string | undefined;
}

/** The whole nginx.conf (pure). */
export function balancerConfig(input: BalancerConfigInput): string {
  return [
    '# Written by npm run cluster (tools/temporal-server/cluster-balancer.ts) at every start.',
    ...(input.streamModule ? [`load_module ${input.streamModule};`] : []),
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(input.dir, 'nginx.pid')};`,
    `error_log ${join(input.dir, 'nginx-error.log')} warn;`,
    'events { worker_connections 1024; }',
    'stream {',
    '  upstream temporal_frontends {',
    // A refused connection marks the node down for 10 s; the next frontend takes the client.
    ...input.upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`),
    '  }',
    '  server {',
    `    listen 127.0.0.1:${input.listenPort};`,
    '    proxy_pass temporal_frontends;',
    '    proxy_connect_timeout 2s;',
    // Idle time between two reads on a connection: above the 70 s of a long poll.
    '    proxy_timeout 10m;',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** nginx with its stream module, when this machine has both. */
export function findNginx(): { binary: string; streamModule?: string } | undefined {
  const which = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], {
    encoding: 'utf8',
  });
  const binary = which.status === 0 ? which.stdout.trim().split('\n')[0] : undefined;
  if (!binary) return undefined;
  const built = spawnSync(binary, ['-V'], { encoding: 'utf8' });
  const options = `${built.stdout}${built.stderr}`;
  if (/--with-stream(\s|$)/.test(options)) return { binary };
  if (/--with-stream=dynamic/.test(options) && existsSync(STREAM_MODULE)) {
    return { binary, streamModule: STREAM_MODULE };
  }
  return undefined;
}

/** The nginx binary and whether its stream module must be loaded; installs both as root. */
export async function ensureNginx(
  log: (l: string) => void,
): Promise<{ binary: string; streamModule?: string }> {
  const found = findNginx();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new ClusterError(
      'nginx with its stream module is needed in front of several nodes: run `sudo apt-get install -y nginx libnginx-mod-stream` once (or start one node: drop --nodes)',
    );
  }
  log(
    'nginx (the balancer of several nodes) is not installed: apt-get install nginx libnginx-mod-stream (one time) ...',
  );
  const started = Date.now();
  const install = () =>
    execFileAsync(
      'apt-get',
      ['install', '-y', '--no-install-recommends', 'nginx', 'libnginx-mod-stream'],
      { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, maxBuffer: 64 * 1024 * 1024 },
    );
  await install().catch(async () => {
    await execFileAsync('apt-get', ['update'], { maxBuffer: 64 * 1024 * 1024 });
    await install();
  });
  log(`Installed nginx in ${Math.round((Date.now() - started) / 1000)} s`);
  const after = findNginx();
  if (!after) throw new ClusterError('apt-get installed nginx but its stream module was not found');
  return after;
}

/** Writes the config into `dir` and returns nginx's command line (the caller spawns it). */
export function balancerCommand(
  nginx: { binary: string; streamModule?: string },
  input: Omit<BalancerConfigInput, 'streamModule'>,
): { command: string; args: string[] } {
  mkdirSync(input.dir, { recursive: true });
  const file = join(input.dir, 'nginx.conf');
  writeFileSync(file, balancerConfig({ ...input, streamModule: nginx.streamModule }));
  // -e: the error log before the config is read (the default, /var/log/nginx, may not be ours).
  return {
    command: nginx.binary,
    args: ['-p', input.dir, '-e', join(input.dir, 'nginx-error.log'), '-c', file],
  };
}
