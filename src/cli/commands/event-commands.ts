/** `events list` and `events redeliver <orderId>` (docs/order-events.md). */
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Command } from 'commander';
import type { OrderEventsState } from '../../order-events/contract/delivery';
import { type CliContext, type CommandRunner, take } from '../cli-context';
import { failedError } from '../cli-errors';
import { table } from '../render';
import { parsePositiveInt } from './content-args';

export function registerEventCommands(program: Command, run: CommandRunner): void {
  const events = program
    .command('events')
    .description("Order events the order system's endpoint has not taken (docs/order-events.md)");
  events
    .command('list')
    .description('Orders whose events are failing delivery or undelivered, oldest event first')
    .option('--limit <n>', 'at most this many', '100')
    .action((o: { limit: string }) => run((ctx) => list(ctx, o.limit)));
  events
    .command('redeliver')
    .description("Retry an order's undelivered events now (after the endpoint was fixed)")
    .argument('<orderId>')
    .action((orderId: string) => run((ctx) => redeliver(ctx, orderId)));
}

const COLUMNS: readonly [string, (r: OrderEventsState) => string | number | undefined][] = [
  ['Order', (r) => r.orderId],
  ['Delivery', (r) => r.mark],
  ['Waiting', (r) => r.pending.length],
  ['Oldest event', (r) => r.pending[0]?.type],
  ['Failing since', (r) => r.failingSince],
  ['Last answer', (r) => r.lastFailure],
  [
    'Next attempt',
    (r) => r.nextAttemptAt ?? (r.mark === 'UNDELIVERED' ? '`events redeliver`' : ''),
  ],
];

async function list(ctx: CliContext, limitText: string): Promise<void> {
  const limit = parsePositiveInt('--limit', limitText);
  const bookings = await ctx.bookings();
  const rows = await take(bookings.failingOrderEvents(), limit);
  ctx.emit({ count: rows.length, orders: rows }, () =>
    rows.length === 0
      ? 'No order events failing: every event was taken by the order system.'
      : [
          table(
            COLUMNS.map(([head]) => head),
            rows.map((r) => COLUMNS.map(([, cell]) => cell(r))),
          ),
          `${rows.length} order(s)`,
        ].join('\n'),
  );
}

async function redeliver(ctx: CliContext, orderId: string): Promise<void> {
  const bookings = await ctx.bookings();
  let st: OrderEventsState;
  try {
    st = await bookings.redeliverOrderEvents(orderId);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    throw failedError(
      `Order ${orderId} has no events waiting: its delivery is not running (all delivered, or no events).`,
      'NOT_FOUND',
    );
  }
  ctx.emit(st, () => `Redelivering ${st.pending.length} event(s) of order ${orderId} now.`);
}
