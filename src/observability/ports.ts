/**
 * A port we listen on that is taken: one line naming the port and what moves it (a variable or a
 * flag), never a stack trace; entry points exit 2 on it. And free ports.
 */
import { createServer } from 'node:net';

/** A port we were told to listen on is taken. `message` is the one line to print. */
export class PortInUseError extends Error {
  constructor(
    /** The variable (or flag) that sets the port, e.g. `METRICS_PORT` or `--port`. */
    readonly setting: string,
    readonly port: number,
    /** What listens there, for the message: `metrics`, `health endpoints`, … */
    readonly what: string,
    host = '0.0.0.0',
  ) {
    super(
      `${setting}: port ${port} (${what}, on ${host}) is already in use, by another process or another worker on this host; choose a free port with ${setting}`,
    );
    this.name = 'PortInUseError';
  }
}

/** Whether `err` says the address is taken (Node's EADDRINUSE, or the Temporal core's text). */
export function isAddressInUse(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 'EADDRINUSE') return true;
  return /address already in use/i.test((err as { message?: unknown }).message?.toString() ?? '');
}

/**
 * `await server.listen(port).catch(whenPortInUse('METRICS_PORT', port, 'metrics'))`: turns a taken
 * port into a {@link PortInUseError}; anything else is rethrown as is.
 */
export function whenPortInUse(
  setting: string,
  port: number,
  what: string,
  host?: string,
): (err: unknown) => never {
  return (err) => {
    if (isAddressInUse(err)) throw new PortInUseError(setting, port, what, host);
    throw err;
  };
}

/** Listens on `port` of `host` and closes again: the port it had; rejects when it could not. */
function listenOnce(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(port, host, () => {
      const addr = srv.address();
      srv.close(() =>
        addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A port free on `host` right now (the OS picks it). */
export function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  return listenOnce(0, host);
}

/**
 * Throws {@link PortInUseError} when `port` is taken on `host`: for ports another program (the
 * Temporal dev server) will bind, whose own failure would not say which setting moves it.
 */
export async function assertPortFree(
  port: number,
  host: string,
  setting: string,
  what: string,
): Promise<void> {
  await listenOnce(port, host).catch(whenPortInUse(setting, port, what, host));
}

/** Whether `port` on `host` can be listened on right now (it is closed again at once). */
export async function portIsFree(port: number, host = '0.0.0.0'): Promise<boolean> {
  return (await listenOnce(port, host).catch(() => undefined)) !== undefined;
}
