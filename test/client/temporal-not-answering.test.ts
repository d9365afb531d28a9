/**
 * Which failures mean "Temporal is not there yet" (the worker's start-up waits them out) and which
 * are answers (it stops): real errors of both SDK connections to a port nothing listens on, and
 * the native core's messages as it writes them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { NativeConnection, TransportError } from '@temporalio/worker';
import { ConfigError } from '../../src/config';
import { startupRetryDelayMs, temporalNotAnswering } from '../../src/client/temporal-not-answering';
import { freePort } from '../../tools/temporal-server/dev-server';

describe('temporalNotAnswering', () => {
  it("the worker's connection to a port nothing listens on: connection refused", async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const err = await NativeConnection.connect({ address }).then(
      (c) => c.close().then(() => undefined),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TransportError, `a TransportError, got ${String(err)}`);
    assert.equal(temporalNotAnswering(err), 'connection refused');
  });

  it("the client's connection to a port nothing listens on: not answering", async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const err = await Connection.connect({ address, connectTimeout: 2_000 }).then(
      (c) => c.close().then(() => undefined),
      (e: unknown) => e,
    );
    assert.ok(err instanceof Error, `an error, got ${String(err)}`);
    assert.ok(temporalNotAnswering(err), `not answering: ${err.message}`);
  });

  it("the native core's messages once connected: unavailable is waited for, a refusal is not", () => {
    const core = (message: string) => Object.assign(new Error(message), { name: 'TransportError' });
    assert.equal(
      temporalNotAnswering(
        core(
          'Namespace default was not found or otherwise could not be described: Status { code: Unavailable, message: "tcp connect error" }',
        ),
      ),
      'unavailable',
    );
    // A server still starting (seen on 1.32.2): its frontend answers, not yet healthy.
    assert.equal(
      temporalNotAnswering(
        core(
          `Failed to call GetSystemInfo: code: 'The service is currently unavailable', message: "Frontend is not healthy yet"`,
        ),
      ),
      'unavailable',
    );
    assert.equal(
      temporalNotAnswering(
        core(
          'Namespace orders was not found or otherwise could not be described: Status { code: NotFound, message: "Namespace orders is not found." }',
        ),
      ),
      undefined,
    );
    assert.equal(
      temporalNotAnswering(
        core('Status { code: PermissionDenied, message: "Request unauthorized." }'),
      ),
      undefined,
    );
    assert.equal(
      temporalNotAnswering(core('Status { code: DeadlineExceeded }')),
      'no answer in time',
    );
  });

  it('gRPC codes: UNAVAILABLE, DEADLINE_EXCEEDED and CANCELLED wait, others do not', () => {
    const grpc = (code: number) => Object.assign(new Error(`code ${code}`), { code });
    assert.equal(temporalNotAnswering(grpc(14)), 'unavailable');
    assert.equal(temporalNotAnswering(grpc(4)), 'no answer in time');
    assert.equal(temporalNotAnswering(grpc(1)), 'no answer in time');
    assert.equal(temporalNotAnswering(grpc(7)), undefined);
    assert.equal(temporalNotAnswering(grpc(16)), undefined);
  });

  it('configuration errors and errors that are not about Temporal are not waited for', () => {
    assert.equal(
      temporalNotAnswering(new ConfigError(['TEMPORAL_TLS_CA: connection refused by policy'])),
      undefined,
    );
    assert.equal(temporalNotAnswering(new Error('connection refused')), undefined);
    assert.equal(temporalNotAnswering('connection refused'), undefined);
    assert.equal(temporalNotAnswering(undefined), undefined);
  });
});

describe('startupRetryDelayMs', () => {
  it('starts at 250 ms, doubles, and stays at 5 s', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 50].map(startupRetryDelayMs),
      [250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000],
    );
  });
});
