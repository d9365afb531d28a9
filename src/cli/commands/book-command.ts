/** `book`: starts `bookRoom` for an order; input is checked before anything connects (exit 2). */
import type { Command } from 'commander';
import {
  BookingInputError,
  validateBookRoomInput,
  type BookRoomInput,
  type BookRoomResult,
  type OrderState,
} from '../../client';
import { cutAtDeadline } from '../../client/temporal-not-answering';
import { buildBookInput, explainInputIssues, type BookFlags } from '../book-input';
import type { CliContext, CommandRunner } from '../cli-context';
import { ExitCode } from '../exit-codes';
import { followBooking } from '../follow-booking';
import { formatDuration, renderResult } from '../render';
import { collect } from './content-args';

/** What a person can do about a phase that waits for one. */
export function phaseHint(state: OrderState): string | undefined {
  const id = state.orderId;
  if (state.phase === 'AWAITING_APPROVAL') {
    return `waiting for a decision on the ${state.pendingDecision?.status ?? 'change'}: run \`approve ${id}\` or \`reject ${id}\``;
  }
  if (state.phase === 'NEEDS_RECONCILIATION') {
    return (
      "the booking call's answer was lost: find the supplier booking by the order id, then run " +
      `\`resolve ${id} --booking-id <id>\` or \`resolve ${id} --no-booking\``
    );
  }
  if (state.phase === 'STATUS_UNREADABLE') {
    return (
      `supplier booking ${state.bookingId ?? '?'} has not been readable for a while ` +
      `(${state.lastError?.code ?? 'errors'}); it is still polled until the confirmation deadline: check it with the supplier`
    );
  }
  return undefined;
}

/** Exit code of a finished booking for commands that asked for one: CONFIRMED or not. */
export const exitForOutcome = (result: BookRoomResult): ExitCode =>
  result.outcome === 'CONFIRMED' ? ExitCode.OK : ExitCode.FAILED;

/** Every problem at once: the flags' own and the schema's, each with its flag. */
function validate(ctx: CliContext, flags: BookFlags): BookRoomInput {
  const { input, issues } = buildBookInput(flags);
  let valid: BookRoomInput | undefined;
  try {
    valid = validateBookRoomInput(input, ctx.config.orderIdField);
  } catch (err) {
    if (!(err instanceof BookingInputError)) throw err;
    issues.push(...explainInputIssues(err.issues));
  }
  if (issues.length > 0 || !valid) throw new BookingInputError(issues);
  return valid;
}

async function book(ctx: CliContext, flags: BookFlags & { wait?: boolean }) {
  const input = validate(ctx, flags);
  const bookings = await ctx.bookings();
  const started = await bookings.startBooking(input);
  const { orderId, workflowId } = started;

  // Decided already: the order's workflow has closed, or still guards the booking.
  if (started.status === 'ALREADY_FINISHED' || started.outcome !== undefined) {
    const result = await bookings.result(orderId);
    ctx.emit({ started, result }, () =>
      [
        `The booking for order ${orderId} already ended ${result.outcome}; a finished booking is ` +
          'never restarted (use a new order id to book again).',
        renderResult(result),
      ].join('\n'),
    );
    return exitForOutcome(result);
  }
  ctx.note(
    started.status === 'STARTED'
      ? `Started booking for order ${orderId} (workflow ${workflowId}).`
      : `A booking for order ${orderId} is already running (workflow ${workflowId}); nothing new was started.`,
  );
  if (!flags.wait) return ctx.emit({ started }, () => `Follow it with: status ${orderId}`);

  const t0 = Date.now();
  const phases: { phase: string; atMs: number }[] = [];
  let warnedNoWorker = false;
  const result = await followBooking({
    state: () => ctx.withWorkerDeadline(() => bookings.bookingState(orderId), 5_000),
    result: () => bookings.result(orderId),
    onChange: (state) => {
      const atMs = Date.now() - t0;
      phases.push({ phase: state.phase, atMs });
      ctx.note(`  ${formatDuration(atMs).padStart(8)}  ${state.phase}`);
      const hint = phaseHint(state);
      if (hint) ctx.note(`            ${hint}`);
    },
    onStateError: (err) => {
      if (warnedNoWorker || !cutAtDeadline(err)) return;
      warnedNoWorker = true;
      ctx.io.stderr(
        `No worker has answered for 5 s: is one polling task queue '${ctx.config.temporal.taskQueue}'? ` +
          'Try `npm run worker` or `npm start`. Still waiting (Ctrl-C stops waiting, not the booking).\n',
      );
    },
  });
  ctx.emit({ started, phases, result }, () => renderResult(result));
  return exitForOutcome(result);
}

export function registerBookCommand(program: Command, run: CommandRunner): void {
  program
    .command('book')
    .description(
      'Book a room option for an order (once per order); --wait follows it to the outcome',
    )
    .option('--input <file.json>', 'the bookRoom input as JSON; flags override its fields')
    .option('--order <orderId>', 'your order id (1-64 of A-Z a-z 0-9 . _ -)')
    .option('--option <optionId>', 'a room option id from `search`')
    .option('--guest <"First Last">', 'lead guest of a room; repeat once per room', collect)
    .option('--phone-prefix <prefix>', "contact phone prefix, e.g. '+39'")
    .option('--phone <number>', 'contact phone number')
    .option('--email <address>', 'contact e-mail')
    .option(
      '--max-increase <percent>',
      'accept a price increase up to this percentage (needs --expected-net)',
    )
    .option('--accept-policy-change', 'accept a changed cancellation policy without asking')
    .option('--approval-timeout <duration>', "how long a change waits for approval, e.g. '15m'")
    .option('--expected-net <amount>', "the net price you expect, e.g. '377.20'")
    .option('--expected-currency <code>', "its currency, e.g. 'EUR'")
    .option('--confirmation-deadline <duration>', "how long to wait for confirmation, e.g. '48h'")
    .option('--checkin <date>', 'check-in date YYYY-MM-DD (searchable in the Temporal UI)')
    .option('--poll-interval <duration>', "poll a pending booking this often, e.g. '2s'")
    .option('--supplier <account>', 'the supplier account to book through (SUPPLIER_ACCOUNTS)')
    .option(
      '--custom-field <name=value>',
      'custom_field_1..9 for the supplier; repeatable',
      collect,
    )
    .option('--wait', 'follow the booking to its outcome (exit 0 only when CONFIRMED)')
    .action((flags: BookFlags & { wait?: boolean }) => run((ctx) => book(ctx, flags)));
}
