/**
 * The hostile mode's answers that are about the wire, not the body (hostile.ts): a body of many
 * megabytes streamed with back-pressure (never held in memory), an answer trickled a byte a second,
 * a connection reset before, between or in the middle of an answer.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Prng } from './prng';

/** Where a spoiled answer goes, its draws and its record. */
export interface Wire {
  readonly res: ServerResponse;
  readonly prng: Prng;
  /** What was done (in words) and the status written, for inspection. */
  readonly record: { variant: string; status?: number };
}

const pick = <T>(prng: Prng, items: readonly T[]): T => items[prng.int(items.length)] as T;
const MiB = 1024 * 1024;
/** Sizes of a huge body: all over the product's 10 MiB cap, the last well over it. */
const HUGE_SIZES = [10 * MiB + 1, 11 * MiB, 32 * MiB];
const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** The trickle's pace: one byte a second. */
const TRICKLE_MS = 1_000;

function noted(wire: Wire, status: number | undefined, variant: string): void {
  wire.record.variant = variant;
  if (status !== undefined) wire.record.status = status;
}

const drained = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/** A valid JSON answer of many megabytes, declared or chunked, padded at its front. */
export async function huge(wire: Wire, status: number, body: string): Promise<void> {
  const { res, prng } = wire;
  const size = pick(prng, HUGE_SIZES);
  const declared = prng.next() < 0.5;
  noted(wire, status, `${size} bytes, ${declared ? 'declared' : 'chunked'}`);
  const head = '{"padding":"';
  const tail = body.trim() === '{}' ? '"}' : `",${body.trim().slice(1)}`;
  res.setHeader('content-type', 'application/json');
  if (declared) res.setHeader('content-length', size);
  res.writeHead(status);
  res.write(head);
  let left = size - head.length - Buffer.byteLength(tail);
  while (left > 0 && !res.destroyed) {
    const n = Math.min(left, CHUNK.length);
    left -= n;
    if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) await drained(res);
  }
  if (!res.destroyed) res.end(tail);
}

/** Writes `text` a byte a second through `write`, then `end`; stops when the connection closes. */
function dribble(
  closable: ServerResponse | Socket,
  text: string,
  write: (byte: string) => void,
  end: () => void,
): void {
  let at = 0;
  const timer = setInterval(() => {
    if (at >= text.length) {
      clearInterval(timer);
      end();
      return;
    }
    write(text[at] ?? '');
    at += 1;
  }, TRICKLE_MS);
  closable.once('close', () => clearInterval(timer));
}

/** The answer a byte a second: its body, its chunks, or the whole message with its status line. */
export function trickle(wire: Wire, status: number, body: string): void {
  const { res, prng } = wire;
  const mode = pick(prng, ['body', 'chunks', 'whole response'] as const);
  noted(wire, status, `${mode} at 1 byte/s`);
  const socket = res.socket;
  if (mode === 'whole response') {
    if (socket === null) return;
    const raw = `HTTP/1.1 ${status} OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    dribble(
      socket,
      raw,
      (b) => socket.write(b),
      () => socket.end(),
    );
    return;
  }
  res.setHeader('content-type', 'application/json');
  if (mode === 'body') res.setHeader('content-length', Buffer.byteLength(body));
  res.writeHead(status);
  res.flushHeaders();
  dribble(
    res,
    body,
    (b) => res.write(b),
    () => res.end(),
  );
}

const RESETS = [
  'before the status line',
  'after the headers',
  'mid-body, reset',
  'mid-body, closed',
  'mid-body, close-delimited',
] as const;

/** The connection broken before, between or in the middle of the answer (RST or FIN). */
export function reset(wire: Wire, status: number, body: string): void {
  const { res, prng } = wire;
  const socket = res.socket;
  const mode = pick(prng, RESETS);
  const at = prng.int(Math.max(1, body.length));
  noted(wire, mode === 'before the status line' ? undefined : status, `${mode} at ${at}`);
  if (socket === null) return;
  const rst = () => setTimeout(() => socket.resetAndDestroy(), 5);
  if (mode === 'before the status line') {
    socket.resetAndDestroy();
    return;
  }
  if (mode === 'mid-body, close-delimited') {
    // No length and no chunks: the body ends where the connection does.
    const head = `HTTP/1.1 ${status} OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n`;
    socket.end(head + body.slice(0, at));
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.writeHead(status);
  if (mode === 'after the headers') {
    res.flushHeaders();
    rst();
    return;
  }
  res.write(body.slice(0, at), () => (mode === 'mid-body, reset' ? rst() : socket.end()));
}
