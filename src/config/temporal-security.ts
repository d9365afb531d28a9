/**
 * Reads and checks the Temporal connection's security settings (TLS files, PEM text, API key) from
 * the Temporal CLI's `TEMPORAL_TLS_*` / `TEMPORAL_API_KEY*` variables.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { shown } from './errors';
import { readText, valueOrFile } from './value-or-file';

/** The set `TEMPORAL_TLS_*` / `TEMPORAL_API_KEY*` variables of `env`, to hand to a subprocess. */
export function temporalSecurityEnvOf(env: TemporalSecurityEnv): Record<string, string> {
  return Object.fromEntries(
    TEMPORAL_SECURITY_VARIABLES.filter((name) => env[name]).map((name) => [name, env[name]!]),
  );
}

/**
 * What {@link loadTemporalSecurity} reads: the shape the client layer's `TemporalSecurity`
 * connects with (the compiler matches the two where they meet).
 */
export interface ConfiguredSecurity {
  readonly tls:
    | {
        readonly clientCertPair?: { readonly crt: Buffer; readonly key: Buffer };
        readonly serverRootCACertificate?: Buffer;
        readonly serverNameOverride?: string;
      }
    | undefined;
  readonly apiKey: string | undefined;
}

/** The variables {@link loadTemporalSecurity} reads (all optional strings). */
export const TEMPORAL_SECURITY_VARIABLES = [
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CERT',
  'TEMPORAL_TLS_CERT_FILE',
  'TEMPORAL_TLS_KEY',
  'TEMPORAL_TLS_KEY_FILE',
  'TEMPORAL_TLS_CA',
  'TEMPORAL_TLS_CA_FILE',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_API_KEY',
  'TEMPORAL_API_KEY_FILE',
] as const;
export type TemporalSecurityEnv = Partial<
  Record<(typeof TEMPORAL_SECURITY_VARIABLES)[number], string | undefined>
>;

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

const set = (v: string | undefined): v is string => v !== undefined && v !== '';

/** A PEM value and the variable it came from. */
type Pem = { readonly value: Buffer; readonly from: string };

/**
 * Reads one PEM value: from `NAME` (a path, or the PEM text) or `NAME_FILE` (a path). Pushes one
 * line per problem.
 */
function readPem(
  env: TemporalSecurityEnv,
  name: 'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_CA',
  problems: string[],
): Pem | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (set(direct) && set(file)) {
    problems.push(`${name} and ${name}_FILE: set only one of them`);
    return undefined;
  }
  if (set(direct) && PEM.test(direct)) return { value: Buffer.from(direct), from: name };
  const path = set(direct) ? direct : file;
  if (!set(path)) return undefined;
  const from = set(direct) ? name : `${name}_FILE`;
  // The key's own value may be key material that is not PEM: never echoed.
  const secret = from === 'TEMPORAL_TLS_KEY';
  const text = readText(path);
  if (typeof text !== 'string') {
    problems.push(
      `${from}: not PEM text, and cannot read ${secret ? 'its value as a file' : shown(path)} (${text.code}); give the PEM or a readable PEM file`,
    );
    return undefined;
  }
  if (!PEM.test(text)) {
    problems.push(
      `${from}: ${secret ? 'its file' : shown(path)} is not a PEM file (no -----BEGIN …----- line)`,
    );
    return undefined;
  }
  return { value: Buffer.from(text), from };
}

function parseBool(name: string, v: string | undefined, problems: string[]): boolean | undefined {
  if (!set(v)) return undefined;
  if (['true', '1'].includes(v)) return true;
  if (['false', '0'].includes(v)) return false;
  problems.push(`${name}: must be true or false (got ${shown(v)})`);
  return undefined;
}

/** The client certificate and its key (together, matching, unexpired) and the CA, readable. */
function checkCertificates(
  cert: Pem | undefined,
  key: Pem | undefined,
  ca: Pem | undefined,
  problems: string[],
): void {
  if (cert && !key) {
    problems.push(
      'TEMPORAL_TLS_KEY: required with TEMPORAL_TLS_CERT (the client certificate’s private key)',
    );
  }
  if (key && !cert) {
    problems.push('TEMPORAL_TLS_CERT: required with TEMPORAL_TLS_KEY (the client certificate)');
  }
  if (cert && key) {
    try {
      const x509 = new X509Certificate(cert.value);
      let privateKey;
      try {
        privateKey = createPrivateKey(key.value);
      } catch {
        problems.push(`${key.from}: not a readable private key (PEM, unencrypted)`);
      }
      if (privateKey && !x509.checkPrivateKey(privateKey)) {
        problems.push(`${key.from}: this key does not belong to the certificate in ${cert.from}`);
      }
      if (Date.parse(x509.validTo) < Date.now()) {
        problems.push(`${cert.from}: the client certificate expired on ${x509.validTo}`);
      }
    } catch {
      problems.push(`${cert.from}: not a readable X.509 certificate (PEM)`);
    }
  }
  if (ca) {
    try {
      new X509Certificate(ca.value);
    } catch {
      problems.push(`${ca.from}: not a readable X.509 CA certificate (PEM)`);
    }
  }
}

/**
 * Validates and loads the TLS / API key variables. Every problem is one line naming the variable
 * and what to change (pushed onto `problems`); nothing secret is ever echoed.
 */
export function loadTemporalSecurity(
  env: TemporalSecurityEnv,
  problems: string[] = [],
): ConfiguredSecurity {
  const before = problems.length;
  const enabled = parseBool('TEMPORAL_TLS', env.TEMPORAL_TLS, problems);
  const cert = readPem(env, 'TEMPORAL_TLS_CERT', problems);
  const key = readPem(env, 'TEMPORAL_TLS_KEY', problems);
  const ca = readPem(env, 'TEMPORAL_TLS_CA', problems);
  const serverName = set(env.TEMPORAL_TLS_SERVER_NAME) ? env.TEMPORAL_TLS_SERVER_NAME : undefined;

  const apiKeyFile = set(env.TEMPORAL_API_KEY_FILE) ? env.TEMPORAL_API_KEY_FILE : undefined;
  const given = set(env.TEMPORAL_API_KEY) ? env.TEMPORAL_API_KEY.trim() : undefined;
  const apiKey = valueOrFile('TEMPORAL_API_KEY', given, apiKeyFile, problems) ?? undefined;
  if (apiKey === '' && apiKeyFile !== undefined)
    problems.push(`TEMPORAL_API_KEY_FILE: ${shown(apiKeyFile)} is empty`);

  checkCertificates(cert, key, ca, problems);
  if (apiKey && cert) {
    problems.push(
      'TEMPORAL_API_KEY and TEMPORAL_TLS_CERT: choose one way to authenticate (an API key for Temporal Cloud, or a client certificate for mTLS)',
    );
  }
  if (enabled === false && (cert || ca || serverName)) {
    problems.push(
      'TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CERT/CA/SERVER_NAME: remove TEMPORAL_TLS or the TLS settings',
    );
  }
  if (problems.length > before) return { tls: undefined, apiKey: undefined };

  // TLS is on when asked for, when any TLS setting is given, or with an API key (Temporal Cloud
  // only accepts API keys over TLS; TEMPORAL_TLS=false opts out, e.g. for a local proxy).
  const tlsOn = enabled ?? Boolean(cert || ca || serverName || apiKey);
  const tls: ConfiguredSecurity['tls'] = tlsOn
    ? {
        ...(cert && key ? { clientCertPair: { crt: cert.value, key: key.value } } : {}),
        ...(ca ? { serverRootCACertificate: ca.value } : {}),
        ...(serverName ? { serverNameOverride: serverName } : {}),
      }
    : undefined;
  return { tls, apiKey };
}
