/**
 * Secured connections against a real TLS server: the run's Temporal dev server behind a
 * TLS-terminating proxy that demands a client certificate (mTLS), with certificates made by
 * openssl here. The typed client (grpc-js) and the worker's NativeConnection (Rust core) both
 * connect through src/client/connection-options.ts; a wrong CA or a missing client certificate is
 * refused with one line naming the variable to change; bad values are refused at start.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NativeConnection } from '@temporalio/worker';
import {
  temporalConnectionFailure,
  temporalConnectionOptions,
} from '../../src/client/connection-options';
import { loadTemporalSecurity, type TemporalSecurityEnv } from '../../src/config/temporal-security';
import { connectBookingClient, TemporalConnectionRefusedError } from '../../src/client';
import { ConfigError, loadConfig } from '../../src/config';
import { makeCertificates, type CertificateSet } from '../../tools/temporal-server/certificates';
import { startTlsProxy, type TlsProxy } from '../helpers/tls-proxy';
import { temporalAddress } from '../helpers/temporal';

describe('Temporal over TLS (mTLS proxy in front of the dev server, or the cluster)', () => {
  let dir: string;
  let certs: CertificateSet;
  let otherCa: CertificateSet;
  let proxy: TlsProxy | undefined;
  let target: { address: string; refusals: () => boolean };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hbo-tls-'));
    certs = await makeCertificates(join(dir, 'good'));
    otherCa = await makeCertificates(join(dir, 'other'), { caName: 'somebody else' });
    if (process.env.TEMPORAL_TLS_CA && process.env.TEMPORAL_TLS_CERT) {
      // The suite runs on the cluster (TEST_ON_CLUSTER=1): its frontend is the mTLS server.
      certs = {
        ...certs,
        caCert: process.env.TEMPORAL_TLS_CA,
        clientCert: process.env.TEMPORAL_TLS_CERT,
        clientKey: process.env.TEMPORAL_TLS_KEY ?? '',
      };
      target = { address: temporalAddress(), refusals: () => true };
    } else {
      proxy = await startTlsProxy({
        target: temporalAddress(),
        cert: certs.serverCert,
        key: certs.serverKey,
        clientCa: certs.caCert,
      });
      const p = proxy;
      target = { address: p.address, refusals: () => p.refusals.length > 0 };
    }
  });
  after(async () => {
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (extra: TemporalSecurityEnv): NodeJS.ProcessEnv => ({
    TEMPORAL_ADDRESS: target.address,
    ...extra,
  });

  it('connects the typed client and the worker connection with the right CA and a client certificate', async () => {
    const config = loadConfig(
      env({
        TEMPORAL_TLS_CERT: certs.clientCert,
        TEMPORAL_TLS_KEY: certs.clientKey,
        TEMPORAL_TLS_CA: certs.caCert,
      }),
    );
    const connected = await connectBookingClient(config);
    try {
      const info = await connected.connection.workflowService.getSystemInfo({});
      assert.ok(info.serverVersion, 'the server answered through TLS');
      const ns = await connected.connection.workflowService.describeNamespace({
        namespace: 'default',
      });
      assert.equal(ns.namespaceInfo?.name, 'default');
    } finally {
      await connected.close();
    }
    const native = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
    try {
      const info = await native.workflowService.getSystemInfo({});
      assert.ok(info.serverVersion, 'the worker connection answered through TLS');
    } finally {
      await native.close();
    }
  });

  it('refuses a server whose certificate another CA issued, naming TEMPORAL_TLS_CA', async () => {
    const config = loadConfig(
      env({
        TEMPORAL_TLS_CERT: certs.clientCert,
        TEMPORAL_TLS_KEY: certs.clientKey,
        TEMPORAL_TLS_CA: otherCa.caCert,
      }),
    );
    await assert.rejects(connectBookingClient(config), (err: unknown) => {
      assert.ok(err instanceof TemporalConnectionRefusedError, String(err));
      assert.match(err.message, /not trusted; set TEMPORAL_TLS_CA/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    const nativeErr = await NativeConnection.connect(
      temporalConnectionOptions(config.temporal),
    ).then(
      async (c) => {
        await c.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    assert.ok(nativeErr, 'the worker connection must be refused too');
    assert.match(
      (await temporalConnectionFailure(nativeErr, config.temporal)) ?? String(nativeErr),
      /not trusted; set TEMPORAL_TLS_CA/,
    );
  });

  it('is refused without a client certificate, with a message that says mTLS is required', async () => {
    const config = loadConfig(env({ TEMPORAL_TLS_CA: certs.caCert }));
    await assert.rejects(connectBookingClient(config), (err: unknown) => {
      assert.ok(err instanceof TemporalConnectionRefusedError, String(err));
      assert.match(err.message, /requires a client certificate.*TEMPORAL_TLS_CERT/);
      return true;
    });
    const nativeErr = await NativeConnection.connect(
      temporalConnectionOptions(config.temporal),
    ).then(
      async (c) => {
        await c.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    assert.ok(nativeErr, 'the worker connection must be refused too');
    assert.match(
      (await temporalConnectionFailure(nativeErr, config.temporal)) ?? String(nativeErr),
      /requires a client certificate/,
    );
    assert.ok(target.refusals(), 'the server refused the handshakes');
  });

  it('refuses a client certificate that another CA issued', async () => {
    const config = loadConfig(
      env({
        TEMPORAL_TLS_CERT: otherCa.clientCert,
        TEMPORAL_TLS_KEY: otherCa.clientKey,
        TEMPORAL_TLS_CA: certs.caCert,
      }),
    );
    await assert.rejects(connectBookingClient(config), (err: unknown) => {
      assert.ok(err instanceof TemporalConnectionRefusedError, String(err));
      assert.match(err.message, /refused our client certificate|requires a client certificate/);
      return true;
    });
  });
});

describe('TLS configuration is validated at start, one line per bad value', () => {
  let dir: string;
  let certs: CertificateSet;
  let other: CertificateSet;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hbo-tls-config-'));
    certs = await makeCertificates(join(dir, 'a'));
    other = await makeCertificates(join(dir, 'b'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // A deployment with an API key or certificates has its own payload keys (the development key
  // serves only a local Temporal without an API key): only the TLS settings are at fault here.
  const payloadKeys = `tls-test:${Buffer.alloc(32, 1).toString('base64')}`;
  const problemsOf = (env: TemporalSecurityEnv): string[] => {
    try {
      loadConfig({ PAYLOAD_ENCRYPTION_KEYS: payloadKeys, ...env } as NodeJS.ProcessEnv);
      return [];
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return [...err.problems];
    }
  };

  it('no TLS variables: plaintext, as for the local dev server', () => {
    assert.deepEqual(loadTemporalSecurity({}), { tls: undefined, apiKey: undefined });
  });

  it('reads PEM from paths, from _FILE paths and as text', () => {
    const fromPath = loadTemporalSecurity({
      TEMPORAL_TLS_CERT: certs.clientCert,
      TEMPORAL_TLS_KEY_FILE: certs.clientKey,
      TEMPORAL_TLS_CA: certs.caCert,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    assert.ok(fromPath.tls?.clientCertPair);
    assert.equal(fromPath.tls.serverNameOverride, 'temporal.internal');
    const pem = fromPath.tls.serverRootCACertificate!.toString();
    const fromText = loadTemporalSecurity({ TEMPORAL_TLS_CA: pem });
    assert.equal(fromText.tls?.serverRootCACertificate?.toString(), pem);
  });

  it('names the unreadable file', () => {
    assert.deepEqual(problemsOf({ TEMPORAL_TLS_CA: join(dir, 'missing.pem') }), [
      `TEMPORAL_TLS_CA: not PEM text, and cannot read ${JSON.stringify(join(dir, 'missing.pem'))} (ENOENT); give the PEM or a readable PEM file`,
    ]);
  });

  it("never shows the key variable's own value, which may be key material that is not PEM", () => {
    const notPem = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC-not-pem-key-material';
    const problems = problemsOf({ TEMPORAL_TLS_KEY: notPem, TEMPORAL_TLS_CERT: certs.clientCert });
    assert.match(
      problems.join(),
      /^TEMPORAL_TLS_KEY: not PEM text, and cannot read its value as a file/,
    );
    assert.doesNotMatch(problems.join(), /not-pem-key-material/);
  });

  it('a key without a certificate, and a certificate without a key', () => {
    assert.deepEqual(problemsOf({ TEMPORAL_TLS_KEY: certs.clientKey }), [
      'TEMPORAL_TLS_CERT: required with TEMPORAL_TLS_KEY (the client certificate)',
    ]);
    assert.match(
      problemsOf({ TEMPORAL_TLS_CERT: certs.clientCert }).join(),
      /TEMPORAL_TLS_KEY: required/,
    );
  });

  it('a key that does not belong to the certificate', () => {
    assert.deepEqual(
      problemsOf({ TEMPORAL_TLS_CERT: certs.clientCert, TEMPORAL_TLS_KEY: other.clientKey }),
      ['TEMPORAL_TLS_KEY: this key does not belong to the certificate in TEMPORAL_TLS_CERT'],
    );
  });

  it('an API key and a client certificate together, and both forms of one variable', () => {
    const keyFile = join(dir, 'api-key');
    writeFileSync(keyFile, 'secret-api-key-value\n');
    const problems = problemsOf({
      TEMPORAL_API_KEY_FILE: keyFile,
      TEMPORAL_TLS_CERT: certs.clientCert,
      TEMPORAL_TLS_KEY: certs.clientKey,
    });
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^TEMPORAL_API_KEY and TEMPORAL_TLS_CERT: choose one/);
    assert.doesNotMatch(problems.join(), /secret-api-key-value/);
    assert.match(
      problemsOf({ TEMPORAL_TLS_CA: certs.caCert, TEMPORAL_TLS_CA_FILE: certs.caCert }).join(),
      /TEMPORAL_TLS_CA and TEMPORAL_TLS_CA_FILE: set only one/,
    );
  });

  it('a file that is not PEM, and TEMPORAL_TLS that is not a boolean', () => {
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    assert.deepEqual(problemsOf({ TEMPORAL_TLS_CA_FILE: notPem, TEMPORAL_TLS: 'yes' }), [
      'TEMPORAL_TLS: must be true or false (got "yes")',
      `TEMPORAL_TLS_CA_FILE: ${JSON.stringify(notPem)} is not a PEM file (no -----BEGIN …----- line)`,
    ]);
  });

  it('an API key alone turns TLS on with the system CAs (Temporal Cloud)', () => {
    const s = loadTemporalSecurity({ TEMPORAL_API_KEY: 'k' });
    assert.deepEqual(s, { tls: {}, apiKey: 'k' });
  });
});
