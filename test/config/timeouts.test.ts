/**
 * The booking activity's timeouts follow the client's configured timeouts, and the worker's
 * shutdown grace is derived from the booking timeout: the pure decisions and their config checks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problemsOf as configProblems } from '../helpers/config-problems';
import { loadWorkerConfig as loadConfig } from '../../src/worker-config';
import { durationToMs } from '../../src/shared/duration';
import {
  CREATE_BOOKING_ACTIVITY,
  clientTimeoutProblems,
  shutdownGraceMsFor,
} from '../../src/workflows/activity-options';

const startToCloseMs = () => durationToMs(CREATE_BOOKING_ACTIVITY.startToCloseTimeout ?? 0) ?? 0;

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadConfig, env);

describe('booking timeouts and the shutdown grace', () => {
  it('gives a booking call configured at 200 s its whole time: the activity does not time out first', () => {
    const config = loadConfig({ HOTEL_API_BOOKING_TIMEOUT_MS: '200000' });
    assert.equal(config.hotelApi.timeouts.bookingMs, 200_000);
    assert.ok(
      startToCloseMs() > 200_000 + 10_000,
      `start-to-close ${startToCloseMs()} ms leaves room for the client's 200 s`,
    );
    assert.deepEqual(CREATE_BOOKING_ACTIVITY.retry, { maximumAttempts: 1 });
    assert.ok(CREATE_BOOKING_ACTIVITY.heartbeatTimeout, 'a dead worker is noticed by heartbeat');
  });

  it('derives the shutdown grace from the booking timeout unless SHUTDOWN_GRACE_MS is set', () => {
    assert.equal(loadConfig({}).worker.shutdownGraceMs, 135_000);
    assert.equal(
      loadConfig({ HOTEL_API_BOOKING_TIMEOUT_MS: '200000' }).worker.shutdownGraceMs,
      shutdownGraceMsFor(200_000),
    );
    assert.ok(shutdownGraceMsFor(200_000) > 200_000);
    assert.equal(loadConfig({ SHUTDOWN_GRACE_MS: '5000' }).worker.shutdownGraceMs, 5_000);
  });

  it('refuses a booking timeout the activity backstop cannot honour, naming the variable', () => {
    const problems = problemsOf({ HOTEL_API_BOOKING_TIMEOUT_MS: String(startToCloseMs()) });
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /^HOTEL_API_BOOKING_TIMEOUT_MS: /);
  });

  it('refuses a read timeout longer than the read activities allow, naming the variable', () => {
    const problems = problemsOf({ HOTEL_API_READ_TIMEOUT_MS: '30000' });
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /^HOTEL_API_READ_TIMEOUT_MS: /);
    assert.deepEqual(clientTimeoutProblems({ bookingMs: 120_000, readMs: 15_000 }), []);
  });
});
