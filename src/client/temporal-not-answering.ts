/**
 * Whether a failed call to Temporal means the server is not there yet (down, restarting, not up
 * before this process) rather than refusing us: waiting cures the first, never the second. The
 * worker's start-up waits out the first and stops at the second (src/worker.ts). And whether a
 * call under a deadline of our own ran out of time, whichever end of the deadline came first
 * (the client and the CLI take it as no answer in time). Pure.
 */
import { isGrpcCancelledError, isGrpcDeadlineError } from '@temporalio/client';

/** How the SDK's native core says it could not reach the server at all. */
const NOT_ANSWERING: readonly (readonly [RegExp, string])[] = [
  [/connection refused/i, 'connection refused'],
  [/connection reset/i, 'connection reset'],
  [/dns error|failed to lookup address|name or service not known/i, 'address not resolved'],
  [/code: Unavailable|\bUNAVAILABLE\b/, 'unavailable'],
  // A server still starting (1.30+): its frontend answers before it serves.
  [/The service is currently unavailable|Frontend is not healthy yet/, 'unavailable'],
  [/code: DeadlineExceeded|deadline has elapsed|DEADLINE_EXCEEDED/, 'no answer in time'],
  [/tcp connect error|ConnectError|transport error/i, 'cannot connect'],
];

/**
 * gRPC status codes of a server that did not answer: UNAVAILABLE, DEADLINE_EXCEEDED, and
 * CANCELLED, which a call under a deadline gets when the server's end of the deadline came first
 * ({@link cutAtDeadline}).
 */
const NOT_ANSWERING_GRPC_CODES = new Map([
  [14, 'unavailable'],
  [4, 'no answer in time'],
  [1, 'no answer in time'],
]);

/**
 * Whether a call made under a deadline of our own (`connection.withDeadline`) ran out of time.
 * Its end comes one of two ways: the client's timer (DEADLINE_EXCEEDED), or the server's copy of
 * the same deadline, which resets the stream (grpc-js reads that as CANCELLED, "Call cancelled").
 * Which comes first is a race a caller whose event loop is busy or paused at that moment loses,
 * so both mean the same: no answer in time. For calls nothing of ours aborts (no abort signal is
 * ever given to them). Pure: the error or its causes (the SDK's checks of a gRPC status).
 */
export function cutAtDeadline(err: unknown): boolean {
  return isGrpcDeadlineError(err) || isGrpcCancelledError(err);
}

/**
 * A short reason ("connection refused", "unavailable", …) when `err` says Temporal did not answer;
 * undefined when it answered with a refusal (TLS, credentials, an unknown namespace) or the error
 * is not about Temporal at all.
 */
export function temporalNotAnswering(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  // The client wraps a call's gRPC error ("Failed to describe workflow", its cause the error).
  if (err.name === 'ServiceError' && err.cause instanceof Error) {
    return temporalNotAnswering(err.cause);
  }
  // A refusal the connection code already explained (TLS, credentials): the configuration's.
  if (err.name === 'ConfigError') return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number' && NOT_ANSWERING_GRPC_CODES.has(code)) {
    return NOT_ANSWERING_GRPC_CODES.get(code);
  }
  // The client's connection (grpc-js) that never got through.
  if (/^Failed to connect before the deadline/.test(err.message)) return 'no answer in time';
  // The native core's errors (TransportError) carry the tonic status in their message.
  if (err.name !== 'TransportError' && typeof code !== 'number') return undefined;
  // A namespace the server does not know is an answer, whatever else the message says.
  if (/code: NotFound|code: PermissionDenied|code: Unauthenticated/.test(err.message)) {
    return undefined;
  }
  return NOT_ANSWERING.find(([pattern]) => pattern.test(err.message))?.[1];
}

/** Waits between start-up attempts: 250 ms, doubling, at most 5 s. */
export function startupRetryDelayMs(attempt: number): number {
  return Math.min(5_000, 250 * 2 ** Math.max(0, attempt - 1));
}
