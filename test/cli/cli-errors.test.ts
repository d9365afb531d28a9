/**
 * How the command-line tool reports a Temporal server that stops answering in the middle of a
 * command (its probe before connecting covers one that was never there): real errors of the
 * client's connection, the same decision as the worker's start-up (temporalNotAnswering).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection, WorkflowClient } from '@temporalio/client';
import { ExitCode } from '../../src/cli/exit-codes';
import { toCliFailure } from '../../src/cli/cli-errors';
import { freePort } from '../../tools/temporal-server/dev-server';
import { connectTemporal } from '../helpers/temporal';

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  );

describe('toCliFailure: Temporal not answering', () => {
  it('a call on a connection whose server is gone: exit 3, Temporal unreachable, its detail', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    // Without the SDK's retries of UNAVAILABLE (about 20 s): the error is what matters here.
    const connection = Connection.lazy({ address, interceptors: [] });
    try {
      const err = await failureOf(
        new WorkflowClient({ connection }).getHandle('booking-x').describe(),
      );
      const failure = toCliFailure(err, { temporalAddress: address });
      assert.equal(failure.exitCode, ExitCode.UNREACHABLE, failure.message);
      assert.equal(failure.code, 'TEMPORAL_UNREACHABLE');
      // The client wraps the gRPC error ("Failed to describe workflow"): the cause decides.
      assert.match(failure.message, new RegExp(`^Cannot reach Temporal at ${address} \\(.+\\)`));
    } finally {
      await connection.close();
    }
  });

  it('a connection that never got through: exit 3, no answer in time', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const err = await failureOf(Connection.connect({ address, connectTimeout: 500 }));
    const failure = toCliFailure(err, { temporalAddress: address });
    assert.equal(failure.code, 'TEMPORAL_UNREACHABLE', failure.message);
    assert.match(failure.message, /\(no answer in time\)/);
  });

  it('a server that answers "no such namespace" is an answer, not an unreachable server', async () => {
    const t = await connectTemporal();
    try {
      const err = await failureOf(
        t.client.workflowService.describeNamespace({ namespace: 'no-such-namespace' }),
      );
      const failure = toCliFailure(err);
      assert.notEqual(failure.code, 'TEMPORAL_UNREACHABLE', failure.message);
      assert.equal(failure.exitCode, ExitCode.FAILED);
    } finally {
      await t.close();
    }
  });
});
