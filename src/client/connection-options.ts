/**
 * The one place that decides how a process connects to Temporal: address, TLS (server
 * verification, mTLS client certificate, server name) and the Temporal Cloud API key, for every
 * `Connection` and `NativeConnection`. src/config/temporal-security.ts reads the settings; this
 * file owns their shape, and explains a refused connection in one line.
 */
import { connect as tlsConnect } from 'node:tls';

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

/** What to change, by failure: one line each, shared by the error's reading and our handshake. */
function advice(at: string) {
  const checkCert = 'check TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY';
  return {
    checkCert,
    certRequired: `${at} refused the connection: it requires a client certificate (mTLS); set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY`,
    certRefused: `${at} refused our client certificate (not issued by a CA it trusts): ${checkCert}`,
    untrusted: `${at}: the server's certificate is not trusted; set TEMPORAL_TLS_CA to the CA that issued it`,
    wrongName: `${at}: the server's certificate is not issued for this name; set TEMPORAL_TLS_SERVER_NAME to a name it carries`,
    notTls: `${at} does not speak TLS on this port: unset the TEMPORAL_TLS_* variables or use its TLS port`,
  };
}

/**
 * A failed connection as one line that says what to change, for the TLS and credential failures
 * people actually hit; undefined when the error is about neither.
 */
export function explainTemporalConnectionError(
  err: unknown,
  target: { readonly address: string } & Partial<TemporalSecurity>,
): string | undefined {
  const text = errorText(err);
  const at = `Temporal at ${target.address}`;
  const say = advice(at);
  const known: [RegExp, string | undefined][] = [
    [
      /certificate required|alert.*116|CertificateRequired|handshake failure|alert number 40/i,
      say.certRequired,
    ],
    [
      /unknown ca|alert.*48|bad certificate|alert number 42|UnknownCA|BadCertificate|decrypt error/i,
      say.certRefused,
    ],
    [
      /self[- ]signed|unable to (get|verify)|UnknownIssuer|invalid peer certificate|certificate verify failed|unknown issuer/i,
      say.untrusted,
    ],
    [/NotValidForName|Hostname\/IP does not match|not valid for name|altnames/i, say.wrongName],
    [
      /wrong version number|InvalidContentType|corrupt message|http2.*frame|packet length too long/i,
      target.tls ? say.notTls : undefined,
    ],
    [
      /Unauthorized|UNAUTHENTICATED|PERMISSION_DENIED|Request unauthorized/i,
      `${at} refused our credentials (${describeTemporalSecurity(target)}): check TEMPORAL_API_KEY or the client certificate`,
    ],
  ];
  return known.find(([pattern, line]) => line !== undefined && pattern.test(text))?.[1];
}

/** The error's message and gRPC details, and its causes', joined. */
function errorText(err: unknown): string {
  const seen = new Set<unknown>();
  const parts: string[] = [];
  for (let e = err; e && !seen.has(e); e = e instanceof Error ? e.cause : undefined) {
    seen.add(e);
    const details = e instanceof Error ? (e as { details?: unknown }).details : undefined;
    parts.push(e instanceof Error ? e.message : String(e));
    if (typeof details === 'string') parts.push(details);
  }
  return parts.join(' | ');
}

/** What a TLS error of our own handshake says, as one line that says what to change. */
function tlsFailures(at: string, withCert: boolean): [RegExp, string][] {
  const say = advice(at);
  return [
    [
      /CERTIFICATE_REQUIRED|alert number 116|HANDSHAKE_FAILURE|alert number 40/i,
      withCert
        ? `${at} refused our client certificate: ${say.checkCert} (issued by a CA the server trusts?)`
        : say.certRequired,
    ],
    [/UNKNOWN_CA|alert number 48|BAD_CERTIFICATE|alert number 42|DECRYPT_ERROR/i, say.certRefused],
    [
      /SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY|CERT_UNTRUSTED|self[- ]signed/i,
      say.untrusted,
    ],
    [/ERR_TLS_CERT_ALTNAME_INVALID|altnames/i, say.wrongName],
    [/WRONG_VERSION_NUMBER|wrong version number|packet length/i, say.notTls],
  ];
}

/**
 * Why a TLS connection to `target` fails, found by a handshake of our own with the same settings
 * (the SDKs often say only "Failed to connect before the deadline"): one line that says what to
 * change, or undefined when the handshake succeeds and the server keeps the connection.
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
    // The first line settles the promise; a later call only finds the socket closed.
    const done = (line: string | undefined) => {
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
            ? `${at} closed the connection after the handshake: it refused our client certificate; ${advice(at).checkCert} (issued by a CA the server trusts?)`
            : advice(at).certRequired
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
      const known = tlsFailures(at, Boolean(tls.clientCertPair)).find(([re]) => re.test(text));
      done(known?.[1] ?? `${at}: the TLS handshake failed (${err.code ?? err.message})`);
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
