/** Listening and closing for the worker's small HTTP servers (metrics, health). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Binds `server`; resolves to a base URL a local client can use (`0.0.0.0` becomes `127.0.0.1`).
 * @param port 0 for a free port.
 */
export function listenOn(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { port: bound } = server.address() as AddressInfo;
      resolve(`http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}`);
    });
  });
}

/** Stops listening and drops open connections (a probe's keep-alive socket must not hold us). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** One of the worker's small HTTP servers: built, then listening. */
export interface SmallServer {
  readonly server: Server;
  /** Resolves to the base URL. @param host @default '0.0.0.0' */
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** `server` as a {@link SmallServer}; an idle keep-alive socket must not delay a drained exit. */
export function smallServer(server: Server): SmallServer {
  server.keepAliveTimeout = 1_000;
  return {
    server,
    listen: (port, host = '0.0.0.0') => listenOn(server, port, host),
    close: () => closeServer(server),
  };
}
