/** `cancel`: an order in any phase (BookingClient.cancelOrder), or a supplier booking by id. */
import type { Command } from 'commander';
import { BookingOutcome, type CancelBookingResult } from '../../client';
import { defined } from '../../shared/defined';
import type { CliContext, CommandRunner } from '../cli-context';
import { usageError } from '../cli-errors';
import { ExitCode } from '../exit-codes';
import { keyValueTable, renderOrderState, renderResult } from '../render';
import { phaseHint } from './book-command';
import { parseBookingId, readBeforeWriting } from './order-writes';
import { SUPPLIER_OPTION } from './content-args';

interface CancelFlags {
  bookingId?: string;
  reason?: string;
  acceptPenalty?: boolean;
  wait?: boolean;
  pollInterval?: string;
  supplier?: string;
}

async function cancelByBookingId(ctx: CliContext, bookingId: number, o: CancelFlags) {
  const bookings = await ctx.bookings();
  const polling = o.pollInterval
    ? { initialInterval: o.pollInterval, maximumInterval: o.pollInterval }
    : undefined;
  const supplier = o.supplier !== undefined ? ctx.account(o.supplier).id : undefined;
  const handle = await bookings.startCancellation(
    defined({ bookingId, supplier, reason: o.reason, polling }),
  );
  ctx.note(
    `Started cancelBooking for supplier booking ${bookingId} (workflow ${handle.workflowId}).`,
  );
  if (!o.wait) {
    ctx.emit({ bookingId, workflowId: handle.workflowId }, () => `Follow it in the Temporal UI.`);
    return;
  }
  const cancellation = (await handle.result()) as CancelBookingResult;
  ctx.emit({ bookingId, workflowId: handle.workflowId, cancellation }, () =>
    keyValueTable([
      ['Supplier booking id', bookingId],
      ['Cancellation', cancellation.outcome],
      ['Reason', cancellation.reason],
    ]),
  );
  return cancellation.outcome === 'CANCELLED' ? ExitCode.OK : ExitCode.FAILED;
}

async function cancel(ctx: CliContext, orderId: string | undefined, o: CancelFlags) {
  if ((orderId === undefined) === (o.bookingId === undefined)) {
    throw usageError('cancel: give an order id, or --booking-id <id>, not both');
  }
  if (o.bookingId !== undefined) return cancelByBookingId(ctx, parseBookingId(o.bookingId), o);
  if (o.pollInterval !== undefined) {
    throw usageError(
      "cancel: --poll-interval goes with --booking-id; an order's cancellation polls as the order was started with",
    );
  }
  const id = orderId!;
  const bookings = await ctx.bookings();
  await readBeforeWriting(ctx, id);
  const c = await ctx.withWorkerDeadline(() =>
    bookings.cancelOrder(id, defined({ reason: o.reason, acceptPenalty: o.acceptPenalty })),
  );
  if (c.kind === 'nothing-to-cancel') {
    ctx.emit({ orderId: id, action: 'none', state: c.state }, () =>
      [
        c.state.truth === 'CANCELLED'
          ? `The booking for order ${id} is already cancelled.`
          : `Nothing to cancel: order ${id} is ${c.state.truth}.`,
        renderOrderState(c.state),
      ].join('\n'),
    );
    return;
  }
  ctx.note(
    `Cancellation requested for order ${id} (phase ${c.state.phase}, held by ${c.state.holder}).`,
  );
  if (c.state.phase === 'NEEDS_RECONCILIATION') {
    // The workflow cannot know whether there is a supplier booking to cancel until told.
    ctx.note(`It ends once reconciled: ${phaseHint(c.state) ?? `resolve ${id}`}`);
  }
  if (!o.wait) {
    ctx.emit({ orderId: id, action: 'requested', state: c.state }, () => renderOrderState(c.state));
    return;
  }
  if (c.state.holder === 'booking') {
    const result = await bookings.result(id);
    if (result.outcome !== BookingOutcome.CONFIRMED || result.bookingId === undefined) {
      ctx.emit({ orderId: id, action: 'requested', result }, () => renderResult(result));
      return result.outcome === BookingOutcome.CANCELLED ? ExitCode.OK : ExitCode.FAILED;
    }
  }
  const state = await bookings.cancellationSettled(id);
  ctx.emit({ orderId: id, action: 'requested', state }, () => renderOrderState(state));
  return state.truth === 'CANCELLED' ? ExitCode.OK : ExitCode.FAILED;
}

export function registerCancelCommand(program: Command, run: CommandRunner): void {
  program
    .command('cancel')
    .description(
      'Cancel an order in any phase before check-in (a confirmed one through its guard; after free cancellation ends only with --accept-penalty), or a supplier booking by id',
    )
    .argument('[orderId]')
    .option('--booking-id <id>', 'cancel this supplier booking id (starts cancelBooking)')
    .option(...SUPPLIER_OPTION)
    .option('--reason <text>', 'why, for the record')
    .option(
      '--accept-penalty',
      'cancel even though free cancellation has ended (or is unknown): the penalty is accepted',
    )
    .option(
      '--poll-interval <duration>',
      "with --booking-id: while the supplier answers 202, poll this often, e.g. '2s'",
    )
    .option('--wait', 'wait for the outcome (exit 0 only when CANCELLED)')
    .action((orderId: string | undefined, o: CancelFlags) => run((ctx) => cancel(ctx, orderId, o)));
}
