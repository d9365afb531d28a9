/**
 * A TLS-terminating proxy in front of a plaintext Temporal server: ALPN h2, and with
 * `requestCert` it demands a client certificate issued by its CA (mTLS), as a secured frontend
 * does. Bytes after the handshake are piped to the target untouched.
 */
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { createServer, type TLSSocket } from 'node:tls';

export interface TlsProxy {
  readonly address: string;
  /** Handshakes the proxy refused, with the reason. */
  readonly refusals: string[];
  close(): Promise<void>;
}

export async function startTlsProxy(options: {
  readonly target: string;
  readonly cert: string;
  readonly key: string;
  /** The CA client certificates must come from; unset = no client certificate asked. */
  readonly clientCa?: string;
}): Promise<TlsProxy> {
  const [host, port] = splitAddress(options.target);
  const sockets = new Set<Socket>();
  const refusals: string[] = [];
  const server = createServer(
    {
      cert: readFileSync(options.cert),
      key: readFileSync(options.key),
      ALPNProtocols: ['h2'],
      ...(options.clientCa
        ? { ca: readFileSync(options.clientCa), requestCert: true, rejectUnauthorized: true }
        : {}),
    },
    (tlsSocket: TLSSocket) => {
      const upstream = connect(port, host);
      sockets.add(tlsSocket);
      sockets.add(upstream);
      tlsSocket.pipe(upstream).pipe(tlsSocket);
      const drop = () => {
        tlsSocket.destroy();
        upstream.destroy();
        sockets.delete(tlsSocket);
        sockets.delete(upstream);
      };
      tlsSocket.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    },
  );
  server.on('tlsClientError', (err) => refusals.push(err.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (!addr || typeof addr !== 'object') throw new Error('TLS proxy has no address');
  return {
    address: `localhost:${addr.port}`,
    refusals,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i) || '127.0.0.1', Number(address.slice(i + 1))];
}
