/** Whether an address names this machine: the one test behind every "local" default. */

/** `localhost`, `127.0.0.0/8` and `::1` (bracketed or not). */
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|::1)$/i;

/** True when `host` (a host name or an IP, without a port) is a loopback address. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}

/**
 * The host of a gRPC `host:port` address (`TEMPORAL_ADDRESS`): `localhost:7233` → `localhost`,
 * `[::1]:7233` → `[::1]`; an address without a port is its own host.
 */
export function hostOfAddress(address: string): string {
  const a = address.trim();
  if (a.startsWith('[')) return a.slice(0, a.indexOf(']') + 1) || a;
  // More than one colon and no brackets: a bare IPv6 address, which cannot carry a port.
  if (a.indexOf(':') !== a.lastIndexOf(':')) return a;
  const colon = a.indexOf(':');
  return colon < 0 ? a : a.slice(0, colon);
}

/** True when a `host:port` address names this machine. */
export function isLoopbackAddress(address: string): boolean {
  return isLoopbackHost(hostOfAddress(address));
}

/** True when a URL's host is this machine (false for what is not a URL). */
export function isLoopbackUrl(url: string): boolean {
  return URL.canParse(url) && isLoopbackHost(new URL(url).hostname);
}
