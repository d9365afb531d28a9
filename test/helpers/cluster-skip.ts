/**
 * Why a test of the cluster cannot run on this machine, or false: the cluster binaries are built
 * once by `npm run cluster`; several nodes also need nginx with its stream module (installed by
 * the cluster itself when it runs as root).
 */
import { findNginx } from '../../tools/temporal-server/cluster-balancer';
import { clusterBinaries, findClusterBinaries } from '../../tools/temporal-server/cluster-binaries';

export function clusterSkip(options: { nodes?: number } = {}): string | false {
  const found = findClusterBinaries();
  const missing = clusterBinaries()
    .filter((b) => !found[b.name])
    .map((b) => b.name);
  if (missing.length > 0) {
    return `cluster binaries not built (${missing.join(', ')}): run \`npm run cluster\` once to build them`;
  }
  if ((options.nodes ?? 1) > 1 && !findNginx() && process.getuid?.() !== 0) {
    return 'nginx with its stream module is not installed (apt-get install nginx libnginx-mod-stream)';
  }
  return false;
}
