/** Where a request goes: the supplier's origin, the `/api/v1` prefix and the query string. */
import type { PreparedRequest, QueryPairs } from './endpoint';
import { invalidRequest } from './validation';

/** The version prefix every path lives under (seed: "All paths are relative to {base_url}/api/v1"). */
export const API_PREFIX = '/api/v1';

/**
 * The origin and the path prefix every endpoint path is appended to. The base URL is the
 * supplier's address; one that already ends in /api/v1 is tolerated.
 */
export function apiBase(baseUrl: string): { readonly origin: string; readonly prefix: string } {
  const url = new URL(baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  return {
    origin: url.origin,
    prefix: basePath.endsWith(API_PREFIX) ? basePath : `${basePath}${API_PREFIX}`,
  };
}

function encodeComponent(s: string): string {
  const e = encodeURIComponent(s);
  return e.includes('%2C') ? e.replaceAll('%2C', ',') : e;
}

/** `a=1&a=2`: arrays as repeated keys (FastAPI's convention); commas stay literal (`2-5,7`). */
export function encodeQuery(pairs: QueryPairs): string {
  return pairs.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&');
}

/** Half of a surrogate pair without its other half: what `encodeURIComponent` refuses. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * The request's query string; INVALID_REQUEST, nothing sent, when a value is not well-formed
 * Unicode (an unpaired surrogate): no URL can carry it. (Keys are the endpoints' own literals.)
 */
export function queryOf(
  req: Pick<PreparedRequest<unknown>, 'query' | 'endpoint' | 'method'>,
): string {
  if (req.query.length === 0) return '';
  try {
    return `?${encodeQuery(req.query)}`;
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    const field = req.query.find(([, v]) => UNPAIRED_SURROGATE.test(v))?.[0] ?? '';
    const message = 'not well-formed Unicode (an unpaired surrogate)';
    throw invalidRequest(req, [{ field, message }]);
  }
}
