/**
 * What every command that writes to a booking does first: read the booking with the tool's keys
 * (write-key-decision.ts), and take a supplier booking id as given on the command line.
 */
import { cutAtDeadline } from '../../client/temporal-not-answering';
import type { CliContext } from '../cli-context';
import { CliError, PayloadFailureCode, payloadCodecErrorIn, usageError } from '../cli-errors';
import { ExitCode } from '../exit-codes';
import { writeKeyProblem } from '../write-key-decision';

export function parseBookingId(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw usageError(`--booking-id: "${raw}" is not a supplier booking id (a positive integer)`, [
      { field: '--booking-id', message: 'a positive integer' },
    ]);
  }
  return n;
}

/**
 * Reads the booking before sending it anything (write-key-decision.ts): a key the tool lacks
 * stops the command here in one line, and so does a tool that would encrypt with a key id its
 * workers do not write with; no worker answering stops it as the update would. Anything else the
 * read meets (no such booking, a run that failed) is left to the command, which says it.
 */
export async function readBeforeWriting(ctx: CliContext, orderId: string): Promise<void> {
  const { bookings, codec } = await ctx.temporal();
  codec.takeDecryptedKeyIds();
  try {
    await ctx.withWorkerDeadline(() => bookings.state(orderId), 10_000);
  } catch (err) {
    if (payloadCodecErrorIn(err) || cutAtDeadline(err)) throw err;
    return;
  }
  const problem = writeKeyProblem({
    encryptsWith: codec.encryptionKeyId,
    workersWrite: codec.takeDecryptedKeyIds(),
  });
  if (problem) throw new CliError(problem, ExitCode.USAGE, PayloadFailureCode.WRITE_KEY);
}
