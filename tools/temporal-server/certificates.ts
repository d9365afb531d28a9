/**
 * A private CA with a server and a client certificate, made with openssl: what the cluster's
 * mTLS frontend uses (`.data/cluster/certs`) and what the TLS tests make for themselves.
 * Idempotent: an existing, still-valid set in `dir` is reused.
 */
import { execFile } from 'node:child_process';
import { X509Certificate, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface CertificateSet {
  readonly dir: string;
  /** The CA certificate: clients verify the server with it, the server verifies clients. */
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

export interface MakeCertificatesOptions {
  /** Names the server certificate is valid for. @default ['localhost', '127.0.0.1'] */
  readonly serverNames?: readonly string[];
  /** The CA's common name (tests make a second, untrusted CA with another). @default 'hotel-booking local CA' */
  readonly caName?: string;
  /** @default 825 */
  readonly days?: number;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(args: readonly string[]): Promise<void> {
  try {
    await execFileAsync('openssl', args);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') {
      throw new Error(
        'openssl not found: install it (apt-get install -y openssl) to make certificates',
      );
    }
    throw new Error(`openssl ${args[0]} failed: ${String(e.stderr ?? e.message).trim()}`);
  }
}

function stillValid(paths: readonly string[]): boolean {
  if (!paths.every((p) => existsSync(p))) return false;
  try {
    const cert = new X509Certificate(readFileSync(paths[0]!));
    // Renew a month before expiry.
    return Date.parse(cert.validTo) > Date.now() + 30 * 86_400_000;
  } catch {
    return false;
  }
}

function isIp(name: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(name) || name.includes(':');
}

async function signLeaf(
  set: { dir: string; caCert: string; caKey: string },
  name: string,
  usage: 'serverAuth' | 'clientAuth',
  sans: readonly string[],
  days: number,
): Promise<{ cert: string; key: string }> {
  const key = join(set.dir, `${name}.key`);
  const cert = join(set.dir, `${name}.pem`);
  const csr = join(set.dir, `${name}.csr`);
  const ext = join(set.dir, `${name}.ext`);
  await openssl(['req', ...EC, '-keyout', key, '-out', csr, '-subj', `/CN=${name}`]);
  const lines = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${usage}`,
  ];
  if (sans.length > 0) {
    lines.push(`subjectAltName=${sans.map((s) => (isIp(s) ? `IP:${s}` : `DNS:${s}`)).join(',')}`);
  }
  writeFileSync(ext, lines.join('\n') + '\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    set.caCert,
    '-CAkey',
    set.caKey,
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-days',
    String(days),
    '-extfile',
    ext,
    '-out',
    cert,
  ]);
  return { cert, key };
}

/** Makes (or reuses) a CA, a server certificate and a client certificate in `dir`. */
export async function makeCertificates(
  dir: string,
  options: MakeCertificatesOptions = {},
): Promise<CertificateSet> {
  const days = options.days ?? 825;
  const serverNames = options.serverNames ?? ['localhost', '127.0.0.1'];
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const set: CertificateSet = {
    dir,
    caCert: join(dir, 'ca.pem'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client.key'),
  };
  if (
    stillValid([
      set.clientCert,
      set.caCert,
      set.caKey,
      set.serverCert,
      set.serverKey,
      set.clientKey,
    ])
  ) {
    return set;
  }
  await openssl([
    'req',
    '-x509',
    ...EC,
    '-keyout',
    set.caKey,
    '-out',
    set.caCert,
    '-days',
    String(days + 30),
    '-subj',
    `/CN=${options.caName ?? 'hotel-booking local CA'}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await signLeaf(set, 'server', 'serverAuth', serverNames, days);
  await signLeaf(set, 'client', 'clientAuth', [], days);
  return set;
}
