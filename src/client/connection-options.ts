/**
 * The one place that decides how a process connects to Temporal: address, TLS (server
 * verification, mTLS client certificate, server name) and the Temporal Cloud API key. The worker's
 * `NativeConnection`, the typed client's `Connection`, the CLI, the stack, the bench and the chaos
 * drills all build their options with {@link temporalConnectionOptions}.
 *
 * Variables follow the Temporal CLI's names, so one set of `export`s serves both our tools and
 * `temporal …`: `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY`, `TEMPORAL_TLS_CA` are paths to PEM files
 * (or the PEM text itself); the `_FILE` forms are always paths.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';

/** The set `TEMPORAL_TLS_*` / `TEMPORAL_API_KEY*` variables of `env`, to hand to a subprocess. */
export function temporalSecurityEnvOf(env: TemporalSecurityEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of TEMPORAL_SECURITY_VARIABLES) {
    const v = env[name];
    if (v) out[name] = v;
  }
  return out;
}

/** TLS settings, the shape both `Connection` and `NativeConnection` take. */
export interface TemporalTls {
  readonly clientCertPair?: { readonly crt: Buffer; readonly key: Buffer };
  readonly serverRootCACertificate?: Buffer;
  readonly serverNameOverride?: string;
}

/** How to reach Temporal securely; `tls` undefined means plaintext (the local dev server). */
export interface TemporalSecurity {
  readonly tls: TemporalTls | undefined;
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

/**
 * Reads one PEM value: from `NAME` (a path, or the PEM text) or `NAME_FILE` (a path). Pushes one
 * line per problem.
 */
function readPem(
  env: TemporalSecurityEnv,
  name: 'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_CA',
  problems: string[],
): { value: Buffer; from: string } | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (set(direct) && set(file)) {
    problems.push(`${name} and ${name}_FILE: set only one of them`);
    return undefined;
  }
  let from: string;
  let text: string;
  if (set(direct) && PEM.test(direct)) {
    from = name;
    text = direct;
  } else {
    const path = set(direct) ? direct : file;
    if (!set(path)) return undefined;
    from = set(direct) ? name : `${name}_FILE`;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      problems.push(
        `${from}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); give a readable PEM file`,
      );
      return undefined;
    }
    if (!PEM.test(text)) {
      problems.push(`${from}: ${path} is not a PEM file (no -----BEGIN …----- line)`);
      return undefined;
    }
  }
  return { value: Buffer.from(text), from };
}

function parseBool(name: string, v: string | undefined, problems: string[]): boolean | undefined {
  if (!set(v)) return undefined;
  if (['true', '1'].includes(v)) return true;
  if (['false', '0'].includes(v)) return false;
  problems.push(`${name}: must be true or false (got "${v}")`);
  return undefined;
}

/**
 * Validates and loads the TLS / API key variables. Every problem is one line naming the variable
 * and what to change (pushed onto `problems`); nothing secret is ever echoed.
 */
export function loadTemporalSecurity(
  env: TemporalSecurityEnv,
  problems: string[] = [],
): TemporalSecurity {
  const before = problems.length;
  const enabled = parseBool('TEMPORAL_TLS', env.TEMPORAL_TLS, problems);
  const cert = readPem(env, 'TEMPORAL_TLS_CERT', problems);
  const key = readPem(env, 'TEMPORAL_TLS_KEY', problems);
  const ca = readPem(env, 'TEMPORAL_TLS_CA', problems);
  const serverName = set(env.TEMPORAL_TLS_SERVER_NAME) ? env.TEMPORAL_TLS_SERVER_NAME : undefined;

  if (set(env.TEMPORAL_API_KEY) && set(env.TEMPORAL_API_KEY_FILE)) {
    problems.push('TEMPORAL_API_KEY and TEMPORAL_API_KEY_FILE: set only one of them');
  }
  let apiKey = set(env.TEMPORAL_API_KEY) ? env.TEMPORAL_API_KEY.trim() : undefined;
  if (!set(env.TEMPORAL_API_KEY) && set(env.TEMPORAL_API_KEY_FILE)) {
    try {
      apiKey = readFileSync(env.TEMPORAL_API_KEY_FILE, 'utf8').trim();
      if (apiKey === '')
        problems.push(`TEMPORAL_API_KEY_FILE: ${env.TEMPORAL_API_KEY_FILE} is empty`);
    } catch (err) {
      problems.push(
        `TEMPORAL_API_KEY_FILE: cannot read ${env.TEMPORAL_API_KEY_FILE} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }

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
  const tls: TemporalTls | undefined = tlsOn
    ? {
        ...(cert && key ? { clientCertPair: { crt: cert.value, key: key.value } } : {}),
        ...(ca ? { serverRootCACertificate: ca.value } : {}),
        ...(serverName ? { serverNameOverride: serverName } : {}),
      }
    : undefined;
  return { tls, apiKey };
}

/** The connection options for `Connection.connect` and `NativeConnection.connect` alike. */
export function temporalConnectionOptions(
  target: { readonly address: string } & Partial<TemporalSecurity>,
): { address: string; tls?: TemporalTls; apiKey?: string } {
  return {
    address: target.address,
    ...(target.tls ? { tls: target.tls } : {}),
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
  };
}

/** One line for logs: how this process connects (never the key or certificate contents). */
export function describeTemporalSecurity(s: Partial<TemporalSecurity>): string {
  if (!s.tls) return s.apiKey ? 'plaintext, API key' : 'plaintext';
  const parts = ['TLS'];
  if (s.tls.clientCertPair) parts.push('client certificate (mTLS)');
  if (s.apiKey) parts.push('API key');
  parts.push(s.tls.serverRootCACertificate ? 'server verified with TEMPORAL_TLS_CA' : 'system CAs');
  if (s.tls.serverNameOverride) parts.push(`server name ${s.tls.serverNameOverride}`);
  return parts.join(', ');
}

/**
 * Turns a failed connection into one line that says what to change, for the TLS failures people
 * actually hit (untrusted server, missing client certificate, TLS against a plaintext port …).
 * Returns undefined when the error is not about TLS or authentication.
 */
export function explainTemporalConnectionError(
  err: unknown,
  target: { readonly address: string } & Partial<TemporalSecurity>,
): string | undefined {
  const text = errorText(err);
  const at = `Temporal at ${target.address}`;
  if (
    /certificate required|alert.*116|CertificateRequired|handshake failure|alert number 40/i.test(
      text,
    )
  ) {
    return `${at} refused the connection: it requires a client certificate (mTLS); set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY`;
  }
  if (
    /unknown ca|alert.*48|bad certificate|alert number 42|UnknownCA|BadCertificate|decrypt error/i.test(
      text,
    )
  ) {
    return `${at} refused our client certificate (not issued by a CA it trusts): check TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY`;
  }
  if (
    /self[- ]signed|unable to (get|verify)|UnknownIssuer|invalid peer certificate|certificate verify failed|unknown issuer/i.test(
      text,
    )
  ) {
    return `${at}: the server's certificate is not trusted; set TEMPORAL_TLS_CA to the CA that issued it`;
  }
  if (/NotValidForName|Hostname\/IP does not match|not valid for name|altnames/i.test(text)) {
    return `${at}: the server's certificate is not issued for this name; set TEMPORAL_TLS_SERVER_NAME to a name it carries`;
  }
  if (
    /wrong version number|InvalidContentType|corrupt message|http2.*frame|packet length too long/i.test(
      text,
    ) &&
    target.tls
  ) {
    return `${at} does not speak TLS on this port: unset the TEMPORAL_TLS_* variables or use its TLS port`;
  }
  if (/Unauthorized|UNAUTHENTICATED|PERMISSION_DENIED|Request unauthorized/i.test(text)) {
    return `${at} refused our credentials (${describeTemporalSecurity(target)}): check TEMPORAL_API_KEY or the client certificate`;
  }
  return undefined;
}

function errorText(err: unknown): string {
  const seen = new Set<unknown>();
  const parts: string[] = [];
  let e: unknown = err;
  while (e && !seen.has(e)) {
    seen.add(e);
    if (e instanceof Error) {
      parts.push(e.message);
      const details = (e as { details?: unknown }).details;
      if (typeof details === 'string') parts.push(details);
      e = e.cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.join(' | ');
}

/**
 * Why a TLS connection to `target` fails, found by a TLS handshake of our own with the same
 * settings (the SDKs often report only "Failed to connect before the deadline"). Resolves to one
 * line that says what to change, or undefined when the handshake succeeds and the server keeps
 * the connection (then the failure was not about TLS).
 */
export async function diagnoseTlsConnection(
  target: { readonly address: string } & Partial<TemporalSecurity>,
  timeoutMs = 5_000,
): Promise<string | undefined> {
  const tls = target.tls;
  if (!tls) return undefined;
  const i = target.address.lastIndexOf(':');
  const host = target.address.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(target.address.slice(i + 1));
  const at = `Temporal at ${target.address}`;
  return new Promise((resolve) => {
    let settled = false;
    const done = (line: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(line);
    };
    const socket = tlsConnect({
      host,
      port,
      servername: tls.serverNameOverride ?? (/^[\d.:]+$/.test(host) ? undefined : host),
      ALPNProtocols: ['h2'],
      ...(tls.serverRootCACertificate ? { ca: tls.serverRootCACertificate } : {}),
      ...(tls.clientCertPair ? { cert: tls.clientCertPair.crt, key: tls.clientCertPair.key } : {}),
    });
    const timer = setTimeout(() => done(undefined), timeoutMs);
    let secure = false;
    // A server that drops the connection right after the handshake rejected our certificate
    // (some TLS stacks send no alert at all).
    socket.once('close', () =>
      done(
        secure
          ? tls.clientCertPair
            ? `${at} closed the connection after the handshake: it refused our client certificate; check TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY (issued by a CA the server trusts?)`
            : `${at} refused the connection: it requires a client certificate (mTLS); set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY`
          : undefined,
      ),
    );
    socket.once('secureConnect', () => {
      secure = true;
      // With TLS 1.3 the server judges our certificate after our side finished: wait for its
      // verdict (an alert) before calling the handshake good.
      setTimeout(() => done(undefined), 500);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const text = `${err.code ?? ''} ${err.message}`;
      if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH/.test(text)) return done(undefined);
      if (/CERTIFICATE_REQUIRED|alert number 116|HANDSHAKE_FAILURE|alert number 40/i.test(text)) {
        return done(
          tls.clientCertPair
            ? `${at} refused our client certificate: check TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY (issued by a CA the server trusts?)`
            : `${at} refused the connection: it requires a client certificate (mTLS); set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY`,
        );
      }
      if (/UNKNOWN_CA|alert number 48|BAD_CERTIFICATE|alert number 42|DECRYPT_ERROR/i.test(text)) {
        return done(
          `${at} refused our client certificate (not issued by a CA it trusts): check TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY`,
        );
      }
      if (
        /SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY|CERT_UNTRUSTED|self[- ]signed/i.test(
          text,
        )
      ) {
        return done(
          `${at}: the server's certificate is not trusted; set TEMPORAL_TLS_CA to the CA that issued it`,
        );
      }
      if (/ERR_TLS_CERT_ALTNAME_INVALID|altnames/i.test(text)) {
        return done(
          `${at}: the server's certificate is not issued for this name; set TEMPORAL_TLS_SERVER_NAME to a name it carries`,
        );
      }
      if (/WRONG_VERSION_NUMBER|wrong version number|packet length/i.test(text)) {
        return done(
          `${at} does not speak TLS on this port: unset the TEMPORAL_TLS_* variables or use its TLS port`,
        );
      }
      return done(`${at}: the TLS handshake failed (${err.code ?? err.message})`);
    });
  });
}

/**
 * One line for a failed connection: what the error says about TLS or credentials, else what a
 * TLS handshake of our own finds; undefined when neither explains it (e.g. nothing listens).
 */
export async function temporalConnectionFailure(
  err: unknown,
  target: { readonly address: string } & Partial<TemporalSecurity>,
): Promise<string | undefined> {
  return explainTemporalConnectionError(err, target) ?? (await diagnoseTlsConnection(target));
}
