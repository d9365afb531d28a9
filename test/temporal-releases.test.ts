/**
 * The supported Temporal releases: which one a run takes (TEMPORAL_RELEASE), where a server's
 * version stands against them, what an older one lacks, and the upgrade path (no minor skipped).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compareReleases,
  NEWEST_RELEASE,
  OLDEST_RELEASE,
  releaseSupport,
  settingsToSet,
  SUPPORTED_RELEASES,
} from '../src/shared/temporal-releases';
import { upgradePath } from '../tools/chaos/upgrade-drill';
import { claimDataDir } from '../tools/temporal-server/cluster';
import { selectedRelease } from '../tools/temporal-server/selected-release';

describe('the supported Temporal releases', () => {
  it('are the last three minors, oldest first, the newest the default', () => {
    const minors = SUPPORTED_RELEASES.map((r) => Number(r.split('.')[1]));
    assert.equal(minors.length, 3);
    assert.deepEqual(minors, [minors[0]!, minors[0]! + 1, minors[0]! + 2]);
    assert.equal(selectedRelease({}), NEWEST_RELEASE);
  });

  it('TEMPORAL_RELEASE takes oldest, newest, a minor or a full version; anything else is one line', () => {
    assert.equal(selectedRelease({ TEMPORAL_RELEASE: 'oldest' }), OLDEST_RELEASE);
    assert.equal(selectedRelease({ TEMPORAL_RELEASE: 'newest' }), NEWEST_RELEASE);
    assert.equal(selectedRelease({ TEMPORAL_RELEASE: '1.30' }), OLDEST_RELEASE);
    assert.equal(selectedRelease({ TEMPORAL_RELEASE: NEWEST_RELEASE }), NEWEST_RELEASE);
    assert.throws(
      () => selectedRelease({ TEMPORAL_RELEASE: '1.29' }),
      /^UnknownReleaseError: TEMPORAL_RELEASE=1\.29: not a supported release; use one of oldest, newest, 1\.30, 1\.31, 1\.32/,
    );
  });

  it("places a server's version: supported, older, newer or unreadable", () => {
    assert.equal(releaseSupport('1.30.0'), 'supported');
    assert.equal(releaseSupport('1.32.2'), 'supported');
    assert.equal(releaseSupport('1.29.1'), 'older');
    assert.equal(releaseSupport('0.99.0'), 'older');
    assert.equal(releaseSupport('1.33.0'), 'newer');
    assert.equal(releaseSupport('2.0.0'), 'newer');
    assert.equal(releaseSupport(''), 'unknown');
  });

  it('names the settings an older server leaves off, none on a supported one', () => {
    assert.deepEqual(
      settingsToSet('1.29.1').map((s) => s.setting),
      ['frontend.enableExecuteMultiOperation=true', 'matching.useNewMatcher=true'],
    );
    assert.deepEqual(
      settingsToSet('1.30.9').map((s) => s.setting),
      ['matching.useNewMatcher=true'],
    );
    assert.deepEqual(settingsToSet('1.31.2'), []);
  });

  it('orders versions, and a cluster data directory refuses a release older than its database', () => {
    assert.ok(compareReleases('1.30.9', '1.31.2') < 0);
    assert.ok(compareReleases('1.32.2', '1.32.10') < 0);
    assert.equal(compareReleases('1.32.2', '1.32.2'), 0);
    const dir = mkdtempSync(join(tmpdir(), 'hbo-release-claim-'));
    try {
      claimDataDir(dir, OLDEST_RELEASE);
      claimDataDir(dir, NEWEST_RELEASE); // an upgrade: allowed, recorded
      assert.throws(
        () => claimDataDir(dir, OLDEST_RELEASE),
        new RegExp(
          `holds a database of Temporal ${NEWEST_RELEASE.replace(/\./g, '\\.')}; ${OLDEST_RELEASE.replace(/\./g, '\\.')} cannot run on it`,
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('upgrades one minor release at a time, to the newest', () => {
    assert.deepEqual(upgradePath(OLDEST_RELEASE), SUPPORTED_RELEASES.slice(1));
    assert.deepEqual(upgradePath(NEWEST_RELEASE), []);
  });
});
