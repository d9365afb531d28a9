/**
 * The Temporal release a run of the tools uses: `TEMPORAL_RELEASE` (`oldest`, `newest`, a minor
 * such as `1.30`, or a full version) for the dev server, the cluster, the suite and the bench; the
 * newest supported when unset (src/shared/temporal-releases.ts names them).
 */
import {
  minorOf,
  NEWEST_RELEASE,
  OLDEST_RELEASE,
  SUPPORTED_RELEASES,
  type TemporalRelease,
} from '../../src/shared/temporal-releases';

export class UnknownReleaseError extends Error {
  constructor(value: string) {
    super(
      `TEMPORAL_RELEASE=${value}: not a supported release; use one of oldest, newest, ` +
        `${SUPPORTED_RELEASES.map(minorOf).join(', ')} or ${SUPPORTED_RELEASES.join(', ')}`,
    );
    this.name = 'UnknownReleaseError';
  }
}

/**
 * The release `TEMPORAL_RELEASE` names (`oldest`, `newest`, a minor such as `1.30`, or a full
 * version), the newest when unset. Pure.
 */
export function selectedRelease(env: NodeJS.ProcessEnv = process.env): TemporalRelease {
  const value = (env.TEMPORAL_RELEASE ?? '').trim();
  if (value === '' || value === 'newest') return NEWEST_RELEASE;
  if (value === 'oldest') return OLDEST_RELEASE;
  const found = SUPPORTED_RELEASES.find((r) => r === value || minorOf(r) === value);
  if (!found) throw new UnknownReleaseError(value);
  return found;
}
