/**
 * The bookings the demo runs, one per behaviour worth seeing, each with the outcome it must reach
 * and what the demo does on the way (approve, reconcile, cancel) as an operator would.
 */
import type { BookRoomInput, BookingClient, OrderState, Price } from '../../src/client';
import { bookingWorkflowId } from '../../src/client';
import { followBooking } from '../../src/cli/follow-booking';
import type { Simulator } from '../simulator';
import { accountCompany } from '../stack/local-stack';
import { scenarioOptionId, type ScenarioName } from '../simulator/scenarios';

/** The second supplier account the demo books through (a company of its simulator). */
export const DEMO_ACCOUNT = 'eu';

/** Short polling: the demo should end in seconds, not at production pace (5 s and up). */
export const DEMO_POLLING = {
  initialInterval: '200ms',
  maximumInterval: '1s',
  backoffCoefficient: 1.5,
} as const;

/** What every case needs. */
export interface DemoContext {
  readonly bookings: BookingClient;
  /** The in-process simulator: the demo finds lost bookings through its inspection. */
  readonly sim: Simulator;
  /** The custom field the order id travels in (custom_field_10 unless configured). */
  readonly orderIdField: string;
  readonly checkin: string;
  readonly checkout: string;
  /** The availability price of the scenario rooms, what an order system would expect to pay. */
  readonly listedPrice: Price;
  /** A phase change, for the live display. */
  readonly onPhase: (orderId: string, phase: string) => void;
  /** Something the demo does for an order, for the live display. */
  readonly onNote: (orderId: string, note: string) => void;
}

export interface CaseResult {
  readonly outcome: string;
  readonly bookingId?: number;
  /** Every workflow the case ran, for the UI links. */
  readonly workflowIds: readonly string[];
  readonly phases: readonly string[];
}

export interface DemoCase {
  /** Suffix of the order id; short and readable. */
  readonly key: string;
  /** What the table shows as the scenario. */
  readonly label: string;
  readonly expected: string;
  run(ctx: DemoContext, orderId: string): Promise<CaseResult>;
}

function input(
  ctx: DemoContext,
  orderId: string,
  scenario: ScenarioName,
  extra: Partial<BookRoomInput> & { param?: number } = {},
): BookRoomInput {
  const { param, ...rest } = extra;
  return {
    orderId,
    optionId: scenarioOptionId(scenario, {
      checkin: ctx.checkin,
      checkout: ctx.checkout,
      ...(param !== undefined ? { param } : {}),
    }),
    rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
    contact: { phonePrefix: '+39', phone: '3331234567', email: 'ada@example.com' },
    checkIn: ctx.checkin,
    polling: DEMO_POLLING,
    ...rest,
  };
}

/**
 * Starts a booking and follows it to its result; `onPhase` may act on a phase (approve, resolve)
 * and its work is awaited before the result is returned, so a failed action is never lost.
 */
async function bookAndFollow(
  ctx: DemoContext,
  booking: BookRoomInput,
  onPhase: (state: OrderState) => Promise<void> | undefined = () => undefined,
): Promise<CaseResult> {
  const { orderId } = booking;
  await ctx.bookings.startBooking(booking);
  const phases: string[] = [];
  const actions: Promise<void>[] = [];
  const failures: unknown[] = [];
  const result = await followBooking({
    state: () => ctx.bookings.bookingState(orderId),
    result: () => ctx.bookings.result(orderId),
    intervalMs: 100,
    onChange: (state) => {
      phases.push(state.phase);
      ctx.onPhase(orderId, state.phase);
      // Caught at once (an action failing while the booking is still followed must not be an
      // unhandled rejection), and rethrown below.
      const action = onPhase(state);
      if (action) actions.push(action.catch((err: unknown) => void failures.push(err)));
    },
  });
  await Promise.all(actions);
  if (failures.length > 0) throw failures[0];
  return {
    outcome: result.outcome,
    ...(result.bookingId !== undefined ? { bookingId: result.bookingId } : {}),
    workflowIds: [bookingWorkflowId(orderId)],
    phases,
  };
}

export const DEMO_CASES: readonly DemoCase[] = [
  {
    key: 'instant',
    label: 'instant',
    expected: 'CONFIRMED',
    run: (ctx, orderId) => bookAndFollow(ctx, input(ctx, orderId, 'instant')),
  },
  {
    key: 'slow-confirm',
    label: 'confirm-after-polls (3)',
    expected: 'CONFIRMED',
    run: (ctx, orderId) =>
      bookAndFollow(ctx, input(ctx, orderId, 'confirm-after-polls', { param: 3 })),
  },
  {
    key: 'price-ok',
    label: 'price-up 10% (≤ 15% ok)',
    expected: 'CONFIRMED',
    run: (ctx, orderId) =>
      bookAndFollow(
        ctx,
        input(ctx, orderId, 'price-up', {
          param: 10,
          expectedPrice: ctx.listedPrice,
          priceChangePolicy: { maxIncreasePercent: 15 },
        }),
      ),
  },
  {
    key: 'price-approve',
    label: 'price-up 30% (approved)',
    expected: 'CONFIRMED',
    run: (ctx, orderId) =>
      bookAndFollow(
        ctx,
        input(ctx, orderId, 'price-up', {
          param: 30,
          expectedPrice: ctx.listedPrice,
          priceChangePolicy: { maxIncreasePercent: 15 },
        }),
        (state) => {
          if (state.phase !== 'AWAITING_APPROVAL') return undefined;
          // What an operator does with `approve <orderId>`.
          ctx.onNote(orderId, `approving +${state.pendingDecision?.increasePercent ?? '?'}%`);
          return ctx.bookings.approvePriceChange(orderId, true).then(() => undefined);
        },
      ),
  },
  {
    key: 'account-eu',
    label: `instant, account ${DEMO_ACCOUNT}`,
    expected: 'CONFIRMED',
    run: async (ctx, orderId) => {
      const booked = await bookAndFollow(
        ctx,
        input(ctx, orderId, 'instant', { supplier: DEMO_ACCOUNT }),
      );
      // Every call of the order went to that account: its booking is its company's.
      const [found] = ctx.sim.bookings({ customFields: { [ctx.orderIdField]: orderId } });
      const company = accountCompany(DEMO_ACCOUNT).key;
      if (booked.outcome === 'CONFIRMED' && found?.companyKey !== company)
        throw new Error(`booked at ${found?.companyKey ?? 'no company'}, not ${company}`);
      ctx.onNote(orderId, `booked at account ${DEMO_ACCOUNT}`);
      return booked;
    },
  },
  {
    key: 'sold-out',
    label: 'sold-out',
    expected: 'NOT_AVAILABLE',
    run: (ctx, orderId) => bookAndFollow(ctx, input(ctx, orderId, 'sold-out')),
  },
  {
    key: 'lost-answer',
    label: 'booking-lost (reconciled)',
    expected: 'CONFIRMED',
    run: (ctx, orderId) =>
      bookAndFollow(ctx, input(ctx, orderId, 'booking-lost'), (state) => {
        if (state.phase !== 'NEEDS_RECONCILIATION') return undefined;
        // What an operator does: find the supplier booking that carries the order id, then
        // `resolve <orderId> --booking-id <id>`. The simulator's inspection stands in for the
        // supplier's back office here.
        const [found] = ctx.sim.bookings({ customFields: { [ctx.orderIdField]: orderId } });
        if (!found) {
          ctx.onNote(orderId, 'no supplier booking found: resolving as never booked');
          return ctx.bookings
            .resolveReconciliation(orderId, { noBooking: true })
            .then(() => undefined);
        }
        ctx.onNote(orderId, `resolving with supplier booking ${found.bookingId}`);
        return ctx.bookings
          .resolveReconciliation(orderId, { bookingId: found.bookingId })
          .then(() => undefined);
      }),
  },
  {
    key: 'cancel-202',
    label: 'cancel-202-resolves',
    expected: 'CANCELLED',
    run: async (ctx, orderId) => {
      const booked = await bookAndFollow(ctx, input(ctx, orderId, 'cancel-202-resolves'));
      if (booked.outcome !== 'CONFIRMED') return booked;
      // The booking is CONFIRMED and its guard holds the order (in the same workflow, or in
      // guard-<orderId> for a bookRoom): the cancellation runs there; the supplier answers 202
      // and the guard polls until the booking reads CANCELLED.
      ctx.onNote(orderId, 'cancelling');
      const c = await ctx.bookings.cancelOrder(orderId, { reason: 'demo: guest changed plans' });
      if (c.kind === 'requested') {
        ctx.onPhase(orderId, 'CANCELLING');
        const settled = await ctx.bookings.cancellationSettled(orderId, 100);
        ctx.onPhase(orderId, settled.truth);
        return {
          outcome: settled.truth,
          ...(booked.bookingId !== undefined ? { bookingId: booked.bookingId } : {}),
          workflowIds: [...new Set([...booked.workflowIds, settled.workflowId])],
          phases: [...booked.phases, 'CANCELLING', settled.truth],
        };
      }
      return { ...booked, outcome: `cancel: ${c.kind}` };
    },
  },
];
