/** What an operator does to bookings; queries and updates have a deadline: no worker is exit 3. */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Command } from 'commander';
import {
  BookingOutcome,
  BookingPhase,
  BOOKING_WORKFLOWS,
  GUARDING_WORKFLOWS,
  GuardPhase,
  bookingWorkflowId,
  type BookRoomResult,
  type OrderState,
} from '../../client';
import { cutAtDeadline } from '../../client/temporal-not-answering';
import { BookingOutcomeKey, BookingPhaseKey } from '../../shared/search-attributes';
import { type CliContext, type CommandRunner, take } from '../cli-context';
import { CliError, toCliFailure, usageError, failedError } from '../cli-errors';
import { renderOrderState, renderResult, renderState, table } from '../render';
import { phaseHint } from './book-command';
import { registerCancelCommand } from './cancel-command';
import { parseBookingId, readBeforeWriting } from './order-writes';

async function status(ctx: CliContext, orderId: string): Promise<void> {
  const bookings = await ctx.bookings();
  const description = await bookings.handle(orderId).describe();
  const workflowId = bookingWorkflowId(orderId);
  const workflowStatus = description.status.name;
  let state: OrderState;
  try {
    // The order's one truth: bookRoom's while it decides, then its guard's until check-out.
    state = await ctx.withWorkerDeadline(() => bookings.state(orderId), 10_000);
  } catch (err) {
    if (!cutAtDeadline(err)) throw err;
    // The last phase the workflow recorded is still worth showing.
    const phase = description.typedSearchAttributes.get(BookingPhaseKey);
    const failure = toCliFailure(err, ctx.failureContext());
    throw new CliError(
      `${failure.message}\nLast recorded phase of order ${orderId}: ${phase ?? 'unknown'}.`,
      failure.exitCode,
      failure.code,
    );
  }
  let result: BookRoomResult | undefined;
  // Decided: the order's workflow has closed, or answers its decision while it guards.
  if (workflowStatus === 'COMPLETED' || (workflowStatus === 'RUNNING' && state.outcome))
    result = await ctx.withWorkerDeadline(() => bookings.result(orderId), 10_000);
  ctx.emit({ orderId, workflowId, workflowStatus, ...(result ? { result } : {}), state }, () => {
    const hint = state.holder === 'booking' ? phaseHint(state) : guardHint(state);
    // bookRoom's own view while it holds the order; once guarded, its outcome and the guard's truth.
    const tables =
      state.holder === 'booking'
        ? [result ? renderResult(result) : renderState(state)]
        : [...(result ? [renderResult(result)] : []), renderOrderState(state)];
    return [
      ...tables,
      ...(!result && workflowStatus !== 'RUNNING'
        ? [`The booking workflow ${workflowId} is ${workflowStatus}: it ended without a result.`]
        : []),
      ...(hint ? [`Next: ${hint}`] : []),
    ].join('\n');
  });
}

/** What an operator does next with a guarded order, if anything. */
function guardHint(state: OrderState): string | undefined {
  const id = state.orderId;
  if (state.phase === 'CANCELLED_BY_SUPPLIER')
    return `the supplier cancelled the booking: rebook or tell the guest (order ${id})`;
  if (state.phase === 'NEEDS_ATTENTION')
    return `a reconfirmation read ${state.flag?.reason ?? 'something unexpected'}: check supplier booking ${state.bookingId} with the supplier`;
  if (state.phase === 'CANCELLATION_PENDING')
    return `the supplier has not confirmed the cancellation: \`cancel ${id}\` tries again; check with the supplier`;
  return undefined;
}

/**
 * Sends an update to a running booking. An ended one answers "not found" (sending a person looking
 * for a typo) and a decided one refuses: say instead that the booking has ended, and how.
 */
async function updateBooking<T>(
  ctx: CliContext,
  orderId: string,
  what: string,
  send: () => Promise<T>,
): Promise<T> {
  await readBeforeWriting(ctx, orderId);
  try {
    return await ctx.withWorkerDeadline(send);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError))
      throw err;
    const bookings = await ctx.bookings();
    const description = await bookings
      .handle(orderId)
      .describe()
      .catch(() => Promise.reject(err));
    const decided = description.typedSearchAttributes.get(BookingOutcomeKey);
    if (err instanceof WorkflowUpdateFailedError && decided === undefined) throw err;
    const phase = decided ?? description.typedSearchAttributes.get(BookingPhaseKey);
    throw failedError(
      `The booking for order ${orderId} has already ended (${phase ?? description.status.name}): nothing is left to ${what}. \`status ${orderId}\` shows how it ended.`,
      'ENDED',
    );
  }
}

async function decide(ctx: CliContext, orderId: string, approve: boolean): Promise<void> {
  const bookings = await ctx.bookings();
  const state = await updateBooking(ctx, orderId, approve ? 'approve' : 'reject', () =>
    bookings.approvePriceChange(orderId, approve),
  );
  const done = `${approve ? 'Approved' : 'Rejected'} the change for order ${orderId}; the booking is now ${state.phase}.`;
  ctx.emit({ orderId, approved: approve, state }, () => `${done}\n${renderState(state)}`);
}

async function keep(ctx: CliContext, orderId: string, o: { reason?: string }) {
  const bookings = await ctx.bookings();
  await readBeforeWriting(ctx, orderId);
  const state = await ctx.withWorkerDeadline(() => bookings.keep(orderId, o.reason));
  const done = `Order ${orderId} is kept: it will not be cancelled automatically.`;
  ctx.emit({ orderId, action: 'keep', state }, () => `${done}\n${renderOrderState(state)}`);
}

async function resolve(
  ctx: CliContext,
  orderId: string,
  o: { bookingId?: string; booking?: boolean },
): Promise<void> {
  const noBooking = o.booking === false;
  if ((o.bookingId === undefined) === !noBooking) {
    throw usageError(
      `resolve: give --booking-id <id> (the supplier booking of order ${orderId}) or --no-booking, one of them`,
    );
  }
  const resolution =
    o.bookingId !== undefined
      ? { bookingId: parseBookingId(o.bookingId) }
      : { noBooking: true as const };
  const bookings = await ctx.bookings();
  const state = await updateBooking(ctx, orderId, 'resolve', () =>
    bookings.resolveReconciliation(orderId, resolution),
  );
  const how =
    'bookingId' in resolution ? `with supplier booking ${resolution.bookingId}` : 'as never booked';
  const done = `Resolved order ${orderId} ${how}; the booking is now ${state.phase}.`;
  ctx.emit({ orderId, resolution, state }, () => `${done}\n${renderState(state)}`);
}

/** Every value `BookingPhase` can hold: the live phases and the outcomes. */
const BOOKING_PHASES: readonly string[] = [
  ...Object.values(BookingPhase),
  ...Object.values(BookingOutcome),
];
/** Phases only a guard (a confirmed order until check-out) is in. */
const GUARD_ONLY_PHASES: readonly string[] = Object.values(GuardPhase).filter(
  (p) => !BOOKING_PHASES.includes(p),
);
const PHASES: readonly string[] = [...BOOKING_PHASES, ...GUARD_ONLY_PHASES];

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * `list`'s visibility query: this deployment's bookings (the task queue separates deployments
 * sharing one namespace), in `phase` when given (a guard's own phases: the guarding workflows).
 */
export function bookingListQuery(taskQueue: string, phase?: string): string {
  return [
    phase !== undefined && GUARD_ONLY_PHASES.includes(phase)
      ? GUARDING_WORKFLOWS
      : BOOKING_WORKFLOWS,
    `TaskQueue = ${quote(taskQueue)}`,
    ...(phase ? [`BookingPhase = ${quote(phase)}`] : []),
  ].join(' AND ');
}

async function list(ctx: CliContext, o: { phase?: string; limit: string }): Promise<void> {
  if (o.phase !== undefined && !PHASES.includes(o.phase)) {
    throw usageError(`--phase: "${o.phase}" is not a phase; one of ${PHASES.join(', ')}`, [
      { field: '--phase', message: `one of ${PHASES.join(', ')}` },
    ]);
  }
  const limit = Number(o.limit);
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw usageError(`--limit: "${o.limit}" is not a positive integer`);
  }
  const bookings = await ctx.bookings();
  const query = bookingListQuery(ctx.config.temporal.taskQueue, o.phase);
  const rows = (await take(bookings.list(query), limit)).map((b) => ({
    orderId: b.workflowId.replace(/^(booking|guard)-/, ''),
    ...b,
  }));
  ctx.emit({ query, count: rows.length, bookings: rows }, () =>
    rows.length === 0
      ? `No bookings match ${query}.`
      : [
          table(
            ['Order', 'Phase', 'Supplier booking id', 'Workflow'],
            rows.map((r) => [r.orderId, r.phase, r.bookingId, r.status]),
          ),
          `${rows.length} booking(s)${rows.length >= limit ? ` (first ${limit}; --limit for more)` : ''}`,
        ].join('\n'),
  );
}

export function registerOperatorCommands(program: Command, run: CommandRunner): void {
  program
    .command('status')
    .description(
      "An order's current truth: the booking's live phase or outcome, then (once confirmed) its guard's until check-out",
    )
    .argument('<orderId>')
    .action((orderId: string) => run((ctx) => status(ctx, orderId)));

  program
    .command('approve')
    .description('Approve the price or policy change a booking waits on')
    .argument('<orderId>')
    .action((orderId: string) => run((ctx) => decide(ctx, orderId, true)));

  program
    .command('reject')
    .description('Reject the price or policy change a booking waits on (it ends PRICE_REJECTED)')
    .argument('<orderId>')
    .action((orderId: string) => run((ctx) => decide(ctx, orderId, false)));

  registerCancelCommand(program, run);

  program
    .command('keep')
    .description(
      'Keep a provisional order (booked with autoCancelBeforePenalty): it will not be cancelled automatically',
    )
    .argument('<orderId>')
    .option('--reason <text>', 'why, for the record')
    .action((orderId: string, o: { reason?: string }) => run((ctx) => keep(ctx, orderId, o)));

  program
    .command('resolve')
    .description('Resolve a booking in NEEDS_RECONCILIATION: the supplier booking it made, or none')
    .argument('<orderId>')
    .option('--booking-id <id>', 'the supplier booking that carries this order id')
    .option('--no-booking', 'the supplier made no booking for this order')
    .action((orderId: string, o: { bookingId?: string; booking?: boolean }) =>
      run((ctx) => resolve(ctx, orderId, o)),
    );

  program
    .command('list')
    .description(
      'Bookings on this task queue, optionally in one phase (visibility query on BookingPhase)',
    )
    .option('--phase <phase>', `one of ${PHASES.join(', ')}`)
    .option('--limit <n>', 'at most this many', '100')
    .action((o: { phase?: string; limit: string }) => run((ctx) => list(ctx, o)));
}
