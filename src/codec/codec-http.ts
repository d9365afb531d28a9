/** The codec server's HTTP pieces: body shape, token check, preflight, capped body, answers. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/** Request headers a browser may send cross-origin (answered in every allowed preflight). */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, X-Namespace';

/** Standard or URL-safe base64, padding optional: proto3 JSON parsers accept both. */
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

/**
 * proto3 JSON leaves an empty list out: the Temporal CLI sends `{}` for a query or update without
 * arguments, which means no payloads.
 */
const PayloadsBody = z.object({
  payloads: z
    .array(
      z.object({
        metadata: z.record(z.string(), base64).nullish(),
        data: base64.nullish(),
      }),
    )
    .default([]),
});

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

/** The configured token, checked in constant time against a bearer header or a `/t/<token>` path. */
export function tokenCheck(token: string) {
  // Compare digests, not tokens: equal lengths for timingSafeEqual, and the token's length leaks
  // nothing either.
  const tokenDigest = sha256(token);
  return (header: string | undefined, pathToken: string | undefined): boolean => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    const presented = match?.[1] ?? (pathToken === undefined ? undefined : safeDecode(pathToken));
    // Hash even when the header is missing so that both paths cost the same.
    const ok = timingSafeEqual(sha256(presented ?? ''), tokenDigest);
    return presented !== undefined && ok;
  };
}

/** The CORS preflight of an allowed origin; any other origin is refused. */
export function preflight(res: ServerResponse, allowedOrigin: string | undefined): void {
  if (allowedOrigin === undefined) {
    throw new HttpError(403, 'origin_not_allowed', 'This origin may not call the codec server');
  }
  res.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
    'Access-Control-Max-Age': '600',
  });
  res.end();
}

/** The body's payloads, or a 400 that says what is wrong where. */
export function payloadsOf(body: Buffer): Payload[] {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'bad_json', 'The body is not valid JSON');
  }
  const parsed = PayloadsBody.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    throw new HttpError(
      400,
      'bad_request',
      `Expected {"payloads":[{"metadata":{...},"data":"<base64>"}]}: ${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data.payloads.map(fromJson);
}

/** A failed request's answer: its HTTP error, or a 500 that says nothing of the cause. */
export function answerFailure(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  onError: (err: unknown) => void,
): void {
  if (err instanceof HttpError) {
    if (err.status === 413) res.setHeader('Connection', 'close');
    sendJson(res, err.status, { error: err.error, message: err.message }, err.headers);
    // A rejected upload may still be streaming in; do not read the rest of it.
    if (err.status === 413) res.once('finish', () => req.destroy());
    return;
  }
  onError(err);
  if (!res.headersSent) {
    sendJson(res, 500, { error: 'internal', message: 'The codec server failed' });
  } else {
    res.destroy();
  }
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * The body, at most `max` bytes. Read with listeners, not `for await`: leaving an async iterator
 * early destroys the request and with it the socket, and the client would get a reset instead of
 * the 413.
 */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const tooLarge = () =>
    new HttpError(413, 'body_too_large', `The body is larger than ${max} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        done();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onAbort = () => {
      done();
      reject(new HttpError(400, 'incomplete_body', 'The request body did not arrive whole'));
    };
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAbort);
    req.once('close', onAbort);
  });
}

// Object.fromEntries defines own properties, so a `__proto__` metadata key stays a plain key.
function fromJson(p: { metadata?: Record<string, string> | null; data?: string | null }): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
    ),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

export function toJson(p: Payload): { metadata: Record<string, string>; data: string } {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, base64Of(v)]),
    ),
    data: base64Of(p.data ?? new Uint8Array(0)),
  };
}

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
