/**
 * Finding the time-skipping test server: the cache lives outside the checkout, and when nothing
 * works the error lists every way that was tried and what to change.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  cachedTestServerPath,
  resolveTestServer,
  TestServerNotFoundError,
  TEST_SERVER_VERSION,
} from '../tools/temporal-server/test-server';

describe('the time-skipping test server', () => {
  it('is cached under XDG_CACHE_HOME, per version', () => {
    assert.equal(
      cachedTestServerPath(TEST_SERVER_VERSION, { XDG_CACHE_HOME: '/var/cache/x' }),
      `/var/cache/x/hotel-booking-orchestrator/temporal-test-server/${TEST_SERVER_VERSION}/temporal-test-server`,
    );
  });

  it('says what it tried and what to change when it cannot be had', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'hbo-ts-'));
    try {
      const err = await resolveTestServer({
        env: { XDG_CACHE_HOME: empty, TEMPORAL_TEST_SERVER_PATH: join(empty, 'nope') },
        allowFetch: false,
        log: () => undefined,
      }).then(
        () => assert.fail('should not resolve'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof TestServerNotFoundError);
      assert.match(err.message, /TEMPORAL_TEST_SERVER_PATH=.*nope: not an executable file/);
      assert.match(err.message, /cache .*: not there yet/);
      assert.match(err.message, /Maven fetch: disabled/);
      assert.match(err.message, /install a JDK/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('uses TEMPORAL_TEST_SERVER_PATH when it names an executable', async () => {
    assert.equal(
      await resolveTestServer({ env: { TEMPORAL_TEST_SERVER_PATH: '/bin/sh' }, allowFetch: false }),
      '/bin/sh',
    );
  });
});
