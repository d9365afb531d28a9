/**
 * Whether a failed call to Temporal means the server is not there yet (down, restarting) rather
 * than refusing us: waiting cures the first, never the second (the worker's start-up waits out the
 * first). And whether a call under a deadline of our own ran out of time. Pure.
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

/** gRPC codes of no answer: UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED ({@link cutAtDeadline}). */
const NOT_ANSWERING_GRPC_CODES = new Map([
  [14, 'unavailable'],
  [4, 'no answer in time'],
  [1, 'no answer in time'],
]);

/**
 * Whether a call under a deadline of our own (`connection.withDeadline`) ran out of time: the
 * client's timer (DEADLINE_EXCEEDED) or the server's copy of the deadline, which resets the stream
 * (grpc-js: CANCELLED), whichever wins the race. Only for calls nothing of ours aborts.
 */
export function cutAtDeadline(err: unknown): boolean {
  return isGrpcDeadlineError(err) || isGrpcCancelledError(err);
}

/**
 * A short reason ("connection refused", …) when `err` says Temporal did not answer; undefined for
 * a refusal (TLS, credentials, an unknown namespace) or an error not about Temporal at all.
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
