/**
 * A quick TCP probe of `host:port`: the Temporal SDK waits 10 s on an address nobody listens on; a
 * refused connection answers in milliseconds, so the tool says at once what to start.
 */
import { connect } from 'node:net';

/** `host:port` or `[v6]:port` split; `undefined` when it is neither. */
export function parseHostPort(address: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address.trim());
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!host || !Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  return { host, port };
}

type Probe = { ok: true } | { ok: false; reason: string };

/** Whether something accepts TCP connections at `address`; the error code when not. */
export async function probeTcp(address: string, timeoutMs = 2_000): Promise<Probe> {
  const target = parseHostPort(address);
  if (!target) return { ok: false, reason: `not a host:port address: ${address}` };
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port });
    const done = (result: Probe) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => done({ ok: false, reason: `no answer in ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.once('connect', () => done({ ok: true }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, reason: err.code ?? err.message }),
    );
  });
}
