/** Shared by the commands that write to a booking: `--booking-id`, and the read before writing. */
import { cutAtDeadline } from '../../client/temporal-not-answering';
import type { CliContext } from '../cli-context';
import { PayloadFailureCode, payloadCodecErrorIn, usageError } from '../cli-errors';
import { writeKeyProblem } from '../write-key-decision';
import { parsePositiveInt } from './content-args';

export const parseBookingId = (raw: string) =>
  parsePositiveInt('--booking-id', raw, 'a supplier booking id');

/**
 * Reads the booking before sending it anything (write-key-decision.ts): a key problem or no worker
 * stops the command here, in one line; anything else (no such booking...) is the command's to say.
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
  if (problem) throw usageError(problem, [], PayloadFailureCode.WRITE_KEY);
}
