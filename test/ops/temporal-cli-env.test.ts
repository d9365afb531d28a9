/**
 * The connection variables as the product and the Temporal CLI 1.5.1 each read them
 * (docs/configuration.md "The Temporal CLI reads fewer forms", docs/deploying.md): against a real
 * TLS server (the run's dev server behind a TLS proxy, or the cluster's mTLS frontend), the same
 * exports connect our client and `temporal workflow list` when the TLS files are paths in
 * `TEMPORAL_TLS_CERT`/`_KEY`/`_CA`; PEM text there, the `*_FILE` forms and
 * `TEMPORAL_API_KEY_FILE` serve the product only, and the CLI needs the forms the docs give it
 * (the CA always as a path: 1.5.1 refuses it as text).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectBookingClient } from '../../src/client';
import { ConfigError, loadConfig } from '../../src/config';
import { makeCertificates } from '../../tools/temporal-server/certificates';
import { resolveTemporalCli } from '../../tools/temporal-server/cli-binary';
import { startTlsProxy, type TlsProxy } from '../helpers/tls-proxy';
import { temporalAddress } from '../helpers/temporal';

interface Files {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

describe('one set of exports for the product and the Temporal CLI', () => {
  let dir: string;
  let files: Files;
  /** The mTLS server: a client certificate from the CA is required. */
  let mtls: string;
  /** A server that speaks TLS without asking for a client certificate (API-key style). */
  let tlsOnly: string | undefined;
  const proxies: TlsProxy[] = [];
  let cliDir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hbo-cli-env-'));
    const cli = await resolveTemporalCli({ log: () => undefined });
    assert.equal(cli.kind, 'binary', 'the suite runs with a Temporal CLI binary');
    cliDir = dirname(cli.kind === 'binary' ? cli.path : '');
    const { TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA } = process.env;
    if (TEMPORAL_TLS_CERT && TEMPORAL_TLS_KEY && TEMPORAL_TLS_CA) {
      // The suite runs on the cluster (TEST_ON_CLUSTER=1): its frontend is the mTLS server, and
      // none speaks TLS without a client certificate.
      files = { cert: TEMPORAL_TLS_CERT, key: TEMPORAL_TLS_KEY, ca: TEMPORAL_TLS_CA };
      mtls = temporalAddress();
      return;
    }
    const certs = await makeCertificates(join(dir, 'certs'));
    files = { cert: certs.clientCert, key: certs.clientKey, ca: certs.caCert };
    const server = { target: temporalAddress(), cert: certs.serverCert, key: certs.serverKey };
    proxies.push(await startTlsProxy({ ...server, clientCa: certs.caCert }));
    proxies.push(await startTlsProxy(server));
    mtls = proxies[0]!.address;
    tlsOnly = proxies[1]!.address;
  });
  after(async () => {
    for (const p of proxies) await p.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pem = (path: string) => readFileSync(path, 'utf8');

  /** Our client, connected with `env` as its whole environment: it answers, or it throws. */
  async function productConnects(env: Record<string, string>): Promise<void> {
    const connected = await connectBookingClient(loadConfig(env));
    try {
      const info = await connected.connection.workflowService.getSystemInfo({});
      assert.ok(info.serverVersion);
    } finally {
      await connected.close();
    }
  }

  /**
   * `temporal workflow list` run by bash as `command` (the docs' form; `temporal` on PATH), with
   * `env` as the only variables besides PATH and a HOME of its own: whether it listed.
   */
  function cliLists(
    env: Record<string, string>,
    command = 'temporal workflow list',
  ): Promise<{ ok: boolean; output: string }> {
    const flags = '--limit 1 --client-connect-timeout 10s --command-timeout 20s';
    return new Promise((resolve) => {
      execFile(
        'bash',
        ['-c', `${command} ${flags}`],
        {
          env: { PATH: `${cliDir}:${process.env.PATH ?? ''}`, HOME: dir, ...env },
          timeout: 60_000,
        },
        (err, stdout, stderr) => resolve({ ok: err === null, output: `${stdout}${stderr}` }),
      );
    });
  }

  it('TLS files as paths in TEMPORAL_TLS_CERT, _KEY and _CA: both connect', async () => {
    const env = {
      TEMPORAL_ADDRESS: mtls,
      TEMPORAL_TLS_CERT: files.cert,
      TEMPORAL_TLS_KEY: files.key,
      TEMPORAL_TLS_CA: files.ca,
    };
    await productConnects(env);
    const cli = await cliLists(env);
    assert.ok(cli.ok, cli.output);
  });

  it('PEM text: the product reads it from TEMPORAL_TLS_CERT, _KEY and _CA; the CLI the certificate and key from its _DATA variables, the CA from a path only', async () => {
    const text = {
      TEMPORAL_ADDRESS: mtls,
      TEMPORAL_TLS_CERT: pem(files.cert),
      TEMPORAL_TLS_KEY: pem(files.key),
      TEMPORAL_TLS_CA: pem(files.ca),
    };
    await productConnects(text);
    const asPaths = await cliLists(text);
    assert.ok(!asPaths.ok, 'the CLI takes PEM text in TEMPORAL_TLS_CERT for a path');
    const data = {
      TEMPORAL_ADDRESS: mtls,
      TEMPORAL_TLS_CERT_DATA: text.TEMPORAL_TLS_CERT,
      TEMPORAL_TLS_KEY_DATA: text.TEMPORAL_TLS_KEY,
    };
    const withCaPath = await cliLists({ ...data, TEMPORAL_TLS_CA: files.ca });
    assert.ok(withCaPath.ok, withCaPath.output);
    // 1.5.1 refuses CA text given alone (the SDK's envconfig v0.1.0 tests the path the wrong
    // way round): the docs say so; a CLI that takes it fails here, to have them changed.
    const caText = await cliLists({ ...data, TEMPORAL_TLS_CA_DATA: text.TEMPORAL_TLS_CA });
    assert.ok(!caText.ok, 'the CLI 1.5.1 takes no CA as text');
    assert.match(caText.output, /cannot have server CA cert path with data/);
  });

  it('the *_FILE forms serve the product only; the CLI connects given them for one command', async () => {
    const env = {
      TEMPORAL_ADDRESS: mtls,
      TEMPORAL_TLS_CERT_FILE: files.cert,
      TEMPORAL_TLS_KEY_FILE: files.key,
      TEMPORAL_TLS_CA_FILE: files.ca,
    };
    await productConnects(env);
    assert.ok(!(await cliLists(env)).ok, 'the CLI reads no _FILE form');
    const documented = await cliLists(
      env,
      'TEMPORAL_TLS_CERT="$TEMPORAL_TLS_CERT_FILE" TEMPORAL_TLS_KEY="$TEMPORAL_TLS_KEY_FILE" ' +
        'TEMPORAL_TLS_CA="$TEMPORAL_TLS_CA_FILE" temporal workflow list',
    );
    assert.ok(documented.ok, documented.output);
  });

  it('TEMPORAL_API_KEY_FILE serves the product only; the CLI takes the key per command, and the product refuses both together', async (t) => {
    if (!tlsOnly) {
      t.skip('the cluster asks every client for a certificate: no API-key server here');
      return;
    }
    const keyFile = join(dir, 'temporal-api-key');
    writeFileSync(keyFile, 'a-temporal-api-key\n');
    const keyed = { TEMPORAL_API_KEY_FILE: keyFile, NODE_ENV: 'development' };
    const perCommand = 'TEMPORAL_API_KEY="$(cat "$TEMPORAL_API_KEY_FILE")" temporal workflow list';
    // An API key turns the CLI's TLS on. On the plaintext server: with the file alone the CLI
    // lists (it read no key), given the key for one command it does not (it read the key).
    const plaintext = { TEMPORAL_ADDRESS: temporalAddress(), ...keyed };
    const fileAlone = await cliLists(plaintext);
    assert.ok(fileAlone.ok, `the CLI reads no TEMPORAL_API_KEY_FILE: ${fileAlone.output}`);
    assert.ok(!(await cliLists(plaintext, perCommand)).ok, 'given the key, the CLI speaks TLS');
    // The deploying.md exports (here with the CA of this server's certificate) and the
    // per-command key: the product and the CLI both connect to a TLS server.
    const env = { TEMPORAL_ADDRESS: tlsOnly, TEMPORAL_TLS_CA: files.ca, ...keyed };
    await productConnects(env);
    const documented = await cliLists(env, perCommand);
    assert.ok(documented.ok, documented.output);
    // Exported in the same shell as the file, the key is refused by the product.
    assert.throws(
      () => loadConfig({ ...env, TEMPORAL_API_KEY: 'a-temporal-api-key' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /TEMPORAL_API_KEY and TEMPORAL_API_KEY_FILE/.test(err.message),
    );
  });
});
