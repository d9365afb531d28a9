/**
 * The invariants every reliability run checks, from both sides: what Temporal says of each order
 * (final, waiting for reconciliation, still running, missing) and what the supplier really holds
 * (at most one booking per order id in the order-id custom field).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { BookingClient } from '../../src/client';
import {
  bookingWorkflowId,
  type BookRoomResult,
  type BookingError,
  type BookingOutcome,
} from '../../src/shared/booking-contract';
import { bookingStateQuery } from '../../src/shared/booking-messages';
import { BookingOutcomeKey, BookingPhaseKey } from '../../src/shared/search-attributes';
import type { Simulator } from '../simulator';

/** Where an order stands. */
export type OrderStatus =
  | { readonly kind: 'final'; readonly outcome: BookingOutcome; readonly result: BookRoomResult }
  | {
      readonly kind: 'reconciliation';
      readonly lastError: (BookingError & { at?: string }) | undefined;
    }
  | { readonly kind: 'running'; readonly phase: string | undefined }
  /** No workflow for the order: the start was lost. */
  | { readonly kind: 'missing' }
  /** The workflow itself failed, was terminated or timed out: the order is lost too. */
  | { readonly kind: 'broken'; readonly status: string }
  /** Never read: every describe or query failed (e.g. no worker answered the query). */
  | { readonly kind: 'unreadable'; readonly error: string };

/** Reads one order's status (a query only for running workflows, which needs a worker). */
export async function orderStatus(
  client: Client,
  orderId: string,
  options: { queryTimeoutMs?: number } = {},
): Promise<OrderStatus> {
  const handle = client.workflow.getHandle(bookingWorkflowId(orderId));
  let description;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { kind: 'missing' };
    throw err;
  }
  const status = description.status.name;
  if (status === 'COMPLETED') {
    const result = (await handle.result()) as BookRoomResult;
    return { kind: 'final', outcome: result.outcome, result };
  }
  if (status !== 'RUNNING') return { kind: 'broken', status };
  const phase = description.typedSearchAttributes.get(BookingPhaseKey);
  if (description.typedSearchAttributes.get(BookingOutcomeKey) !== undefined) {
    // Decided and guarding its booking: the guard's state holds the decision.
    const state = await client.connection.withDeadline(
      Date.now() + (options.queryTimeoutMs ?? 10_000),
      () => handle.query(bookingStateQuery),
    );
    const result: BookRoomResult = {
      orderId,
      outcome: state.outcome as BookingOutcome,
      ...(state.bookingId !== undefined ? { bookingId: state.bookingId } : {}),
      ...(state.supplierStatus !== undefined ? { supplierStatus: state.supplierStatus } : {}),
      ...(state.price !== undefined ? { price: state.price } : {}),
    };
    return { kind: 'final', outcome: result.outcome, result };
  }
  if (phase !== 'NEEDS_RECONCILIATION') return { kind: 'running', phase };
  const state = await client.connection.withDeadline(
    Date.now() + (options.queryTimeoutMs ?? 10_000),
    () => handle.query(bookingStateQuery),
  );
  return { kind: 'reconciliation', lastError: state.lastError };
}

export const isSettled = (s: OrderStatus) => s.kind === 'final' || s.kind === 'reconciliation';

/**
 * Waits until every order is final or waits for reconciliation, or `timeoutMs` passes; returns the
 * last status of each order.
 */
export async function waitForSettled(
  client: Client,
  orderIds: readonly string[],
  options: { timeoutMs: number; pollMs?: number; log?: (line: string) => void },
): Promise<Map<string, OrderStatus>> {
  const statuses = new Map<string, OrderStatus>();
  const deadline = Date.now() + options.timeoutMs;
  let pending = [...orderIds];
  let lastLog = 0;
  while (pending.length > 0) {
    const next: string[] = [];
    // A few at a time: the dev server shares 2 cores with everything else.
    for (let i = 0; i < pending.length; i += 16) {
      const batch = pending.slice(i, i + 16);
      await Promise.all(
        batch.map(async (id) => {
          try {
            const s = await orderStatus(client, id, { queryTimeoutMs: 5_000 });
            statuses.set(id, s);
            if (!isSettled(s)) next.push(id);
          } catch (err) {
            // The server or the worker is restarting: ask again next round. An order never read
            // says why, rather than passing for one with no workflow.
            const prior = statuses.get(id);
            if (prior === undefined || prior.kind === 'unreadable')
              statuses.set(id, { kind: 'unreadable', error: shortError(err) });
            next.push(id);
          }
        }),
      );
    }
    pending = next;
    if (pending.length === 0 || Date.now() > deadline) break;
    if (options.log && Date.now() - lastLog > 5_000) {
      lastLog = Date.now();
      const detail = `: ${await describePending(client, pending.slice(0, 3))}${pending.length > 3 ? ', …' : ''}`;
      options.log(`waiting for ${pending.length} of ${orderIds.length} orders to settle${detail}`);
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 500));
  }
  return statuses;
}

const shortError = (err: unknown) =>
  (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 200);

/** `orderId phase [activity#attempt: last failure]`, for progress lines about slow orders. */
async function describePending(client: Client, orderIds: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    orderIds.map(async (id) => {
      try {
        const d = await client.workflow.getHandle(bookingWorkflowId(id)).describe();
        const phase = d.typedSearchAttributes.get(BookingPhaseKey) ?? '?';
        const activities = (d.raw.pendingActivities ?? []).map(
          (a) =>
            `${a.activityType?.name ?? '?'}#${a.attempt ?? '?'}${a.lastFailure ? ` (${a.lastFailure.message})` : ''}`,
        );
        return `${id} ${phase}${activities.length ? ` [${activities.join(', ')}]` : ''}`;
      } catch (err) {
        return `${id} (${err instanceof Error ? err.message : String(err)})`;
      }
    }),
  );
  return parts.join('; ');
}

/** Supplier bookings per order id (from the simulator's inspection). */
export function supplierBookingsByOrder(
  sim: Simulator,
  orderIdField = 'custom_field_10',
): Map<string, number[]> {
  const byOrder = new Map<string, number[]>();
  for (const b of sim.bookings()) {
    const fields = b.customFields;
    const orderId =
      typeof fields === 'object' && fields !== null ? fields[orderIdField] : undefined;
    const key = orderId ?? '(no order id)';
    byOrder.set(key, [...(byOrder.get(key) ?? []), b.bookingId]);
  }
  return byOrder;
}

export interface AuditReport {
  readonly orders: number;
  /** Final outcomes, by outcome. */
  readonly outcomes: Record<string, number>;
  /** Orders waiting in NEEDS_RECONCILIATION. */
  readonly reconciliation: string[];
  /** Orders still running in another phase after the wait, or never read (stuck). */
  readonly stuck: { orderId: string; phase: string | undefined }[];
  /** Orders without a workflow, or whose workflow failed or was terminated. */
  readonly lost: { orderId: string; why: string }[];
  /** Orders with more than one supplier booking. */
  readonly duplicates: { orderId: string; bookingIds: number[] }[];
  /** Supplier bookings whose order id is not one of ours (should be none). */
  readonly strangers: number;
  readonly supplierBookings: number;
}

/** Checks the invariants over the settled statuses and the supplier's bookings. */
export function audit(
  statuses: ReadonlyMap<string, OrderStatus>,
  orderIds: readonly string[],
  sim: Simulator,
  orderIdField = 'custom_field_10',
): AuditReport {
  const outcomes: Record<string, number> = {};
  const reconciliation: string[] = [];
  const stuck: AuditReport['stuck'] = [];
  const lost: AuditReport['lost'] = [];
  for (const id of orderIds) {
    const s = statuses.get(id) ?? { kind: 'missing' };
    if (s.kind === 'final') outcomes[s.outcome] = (outcomes[s.outcome] ?? 0) + 1;
    else if (s.kind === 'reconciliation') reconciliation.push(id);
    else if (s.kind === 'running') stuck.push({ orderId: id, phase: s.phase });
    else if (s.kind === 'unreadable') stuck.push({ orderId: id, phase: `unreadable: ${s.error}` });
    else if (s.kind === 'missing') lost.push({ orderId: id, why: 'no workflow' });
    else lost.push({ orderId: id, why: `workflow ${s.status}` });
  }
  const byOrder = supplierBookingsByOrder(sim, orderIdField);
  const ours = new Set(orderIds);
  const duplicates: AuditReport['duplicates'] = [];
  let strangers = 0;
  let supplierBookings = 0;
  for (const [orderId, ids] of byOrder) {
    supplierBookings += ids.length;
    if (!ours.has(orderId)) strangers += ids.length;
    if (ids.length > 1) duplicates.push({ orderId, bookingIds: ids });
  }
  return {
    orders: orderIds.length,
    outcomes,
    reconciliation,
    stuck,
    lost,
    duplicates,
    strangers,
    supplierBookings,
  };
}

/**
 * Resolves every order waiting in NEEDS_RECONCILIATION the way an operator would: looks the order
 * up at the supplier (by the order-id custom field) and answers with the booking found or
 * `noBooking`. Returns how many of each.
 */
export async function reconcileAll(
  bookings: BookingClient,
  sim: Simulator,
  orderIds: readonly string[],
  orderIdField = 'custom_field_10',
): Promise<{ withBooking: number; noBooking: number; failed: string[] }> {
  const byOrder = supplierBookingsByOrder(sim, orderIdField);
  let withBooking = 0;
  let noBooking = 0;
  const failed: string[] = [];
  for (const orderId of orderIds) {
    const found = byOrder.get(orderId) ?? [];
    try {
      if (found.length === 1) {
        await bookings.resolveReconciliation(orderId, { bookingId: found[0]! });
        withBooking += 1;
      } else if (found.length === 0) {
        await bookings.resolveReconciliation(orderId, { noBooking: true });
        noBooking += 1;
      } else {
        failed.push(`${orderId}: ${found.length} supplier bookings`);
      }
    } catch (err) {
      failed.push(`${orderId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { withBooking, noBooking, failed };
}

/** Starts a booking, retrying while Temporal is unreachable (an upstream system would). */
export async function startWithRetry(
  bookings: BookingClient,
  input: Parameters<BookingClient['startBooking']>[0],
  options: { timeoutMs?: number } = {},
): Promise<{ attempts: number; status: string }> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (let attempt = 1; ; attempt++) {
    try {
      const started = await bookings.client.connection.withDeadline(Date.now() + 10_000, () =>
        bookings.startBooking(input),
      );
      return { attempts: attempt, status: started.status };
    } catch (err) {
      if (err instanceof Error && err.name === 'BookingInputError') throw err;
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, Math.min(2_000, 200 * attempt)));
    }
  }
}

/** `{ a: 1, b: 2 }` → `a=1 b=2`, keys sorted. */
export function formatCounts(counts: Readonly<Record<string, number>>): string {
  return (
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || '(none)'
  );
}
