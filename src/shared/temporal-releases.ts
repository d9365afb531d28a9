/**
 * The Temporal server releases the product runs on: Temporal supports the last three minor
 * releases, and each one here is the newest patch that builds from the Go module proxy. The newest
 * is the default everywhere (dev server, cluster, compose, bench); a whole run can take another
 * (tools/temporal-server/selected-release.ts); `doctor namespace` warns on a server outside them.
 * The one place that names them.
 */

/**
 * Oldest first. 1.31.3–1.31.5 need pre-releases of `go.temporal.io/auto-scaled-workers` that the
 * module proxy does not serve; 1.31.2 is the newest 1.31 that builds here.
 */
export const SUPPORTED_RELEASES = ['1.30.9', '1.31.2', '1.32.2'] as const;
export type TemporalRelease = (typeof SUPPORTED_RELEASES)[number];

export const NEWEST_RELEASE: TemporalRelease = SUPPORTED_RELEASES[SUPPORTED_RELEASES.length - 1]!;
export const OLDEST_RELEASE: TemporalRelease = SUPPORTED_RELEASES[0];

/** The Temporal UI server (its own module and version line): the newest that builds from the module proxy (2.58 needs a go.temporal.io/api release it does not serve). */
export const TEMPORAL_UI_VERSION = '2.56.4';

/**
 * The Go toolchain the builds ask for: server 1.32 needs Go ≥ 1.26.10, and the go command fetches
 * this one from the module proxy once per machine when the local Go is older.
 */
export const GO_TOOLCHAIN = 'go1.27.3';

/** Orders two versions `a.b.c` (negative: `x` is older). Pure. */
export function compareReleases(x: string, y: string): number {
  const [a, b] = [x, y].map((v) => v.split('.').map((n) => Number(n) || 0));
  for (let i = 0; i < 3; i++) {
    const d = (a![i] ?? 0) - (b![i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The minor of a version, `1.32.2` → `1.32`. */
export function minorOf(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/** Where a server's version (GetSystemInfo's `serverVersion`) stands against the supported. */
export type ReleaseSupport = 'supported' | 'older' | 'newer' | 'unknown';

/** Pure. */
export function releaseSupport(version: string): ReleaseSupport {
  const m = /^v?(\d+)\.(\d+)\./.exec(version);
  if (!m) return 'unknown';
  const minor = Number(m[1]) * 1000 + Number(m[2]);
  const [oldest, newest] = [OLDEST_RELEASE, NEWEST_RELEASE].map((r) => {
    const [a, b] = r.split('.').map(Number);
    return a! * 1000 + b!;
  });
  if (minor < oldest!) return 'older';
  if (minor > newest!) return 'newer';
  return 'supported';
}

/**
 * What the product relies on that an older server leaves off by default, by the release that
 * turned it on (Temporal's release notes): the dynamic config an operator sets below it.
 */
export const DEFAULTS_SINCE: readonly {
  readonly since: string;
  readonly setting: string;
  readonly what: string;
}[] = [
  {
    since: '1.30',
    setting: 'frontend.enableExecuteMultiOperation=true',
    what: 'update-with-start (one start per order id)',
  },
  {
    since: '1.31',
    setting: 'matching.useNewMatcher=true',
    what: 'task-queue priority (new bookings ahead of due polls)',
  },
];

/** The settings a server of `version` needs set by hand (none on a supported release). Pure. */
export function settingsToSet(version: string): typeof DEFAULTS_SINCE {
  const m = /^v?(\d+)\.(\d+)\./.exec(version);
  if (!m) return [];
  const minor = Number(m[1]) * 1000 + Number(m[2]);
  return DEFAULTS_SINCE.filter((d) => {
    const [a, b] = d.since.split('.').map(Number);
    return minor < a! * 1000 + b!;
  });
}
