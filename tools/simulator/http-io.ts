/** Low-level HTTP plumbing: URL splitting, bounded body reading, JSON body decoding. */
import type { IncomingMessage } from 'node:http';
import type { ValidationIssue } from './validation';

/** The path (percent-decoded where possible) and raw query string of a request target. */
export function splitTarget(target: string | undefined): { path: string; query: string } {
  let url = target ?? '/';
  if (!url.startsWith('/')) {
    // Absolute-form (`http://host/path`) is legal HTTP; anything else matches no route.
    try {
      const parsed = new URL(url);
      url = parsed.pathname + parsed.search;
    } catch {
      return { path: '', query: '' };
    }
  }
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q + 1);
  let path = rawPath;
  if (rawPath.includes('%')) {
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      // Starlette keeps undecodable sequences as they are; so do we.
    }
  }
  return { path, query };
}

export type BodyRead =
  | { readonly kind: 'ok'; readonly data: Buffer }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'aborted' };

/** Reads a request body up to `limit` bytes; stops reading as soon as it is exceeded. */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle({ kind: 'ok', data: Buffer.concat(chunks, size) });
    const onError = () => settle({ kind: 'aborted' });
    const onClose = () =>
      settle(
        req.complete ? { kind: 'ok', data: Buffer.concat(chunks, size) } : { kind: 'aborted' },
      );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** A request body as FastAPI sees it before validation. */
export type ParsedBody =
  | { readonly kind: 'json'; readonly value: unknown }
  /** No body at all: the body field is missing. */
  | { readonly kind: 'absent' }
  /** Bytes under a non-JSON content type: not an object to validate. */
  | { readonly kind: 'not-json' }
  /** JSON that does not decode: answered 422 before anything else, as FastAPI does. */
  | { readonly kind: 'invalid'; readonly issue: ValidationIssue };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isJsonContentType(contentType: string): boolean {
  const mime = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

/**
 * Decodes a body the way FastAPI does: JSON when the content type is JSON or absent, otherwise
 * raw bytes that fail model validation.
 */
export function parseJsonBody(data: Buffer, contentType: string | undefined): ParsedBody {
  if (data.length === 0) return { kind: 'absent' };
  if (contentType !== undefined && contentType !== '' && !isJsonContentType(contentType)) {
    return { kind: 'not-json' };
  }
  let text: string;
  try {
    text = utf8.decode(data);
  } catch {
    return { kind: 'invalid', issue: jsonInvalid(0, 'invalid UTF-8') };
  }
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (err) {
    const message = err instanceof Error ? err.message : 'JSON decode error';
    const position = /position (\d+)/.exec(message)?.[1];
    return {
      kind: 'invalid',
      issue: jsonInvalid(position === undefined ? text.length : Number(position), message),
    };
  }
}

function jsonInvalid(position: number, error: string): ValidationIssue {
  return {
    type: 'json_invalid',
    loc: ['body', position],
    msg: 'JSON decode error',
    ctx: { error },
  };
}
