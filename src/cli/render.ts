/** Human output: plain tables (no colours: piped output and tests read the same text), formatters. */
import Table from 'cli-table3';
import type { BookRoomResult, OrderState, SupplierPrice } from '../client';

type Cell = string | number | boolean | null | undefined;

export function table(head: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const t = new Table({ head: [...head], style: { head: [], border: [], compact: true } });
  for (const row of rows) t.push(row.map((c) => (c === undefined || c === null ? '' : String(c))));
  return t.toString();
}

/** A two-column `name │ value` table; rows whose value is undefined are left out. */
export function keyValueTable(rows: readonly (readonly [string, Cell])[]): string {
  const t = new Table({ style: { head: [], border: [], compact: true } });
  const shown = rows.filter(([, v]) => v !== undefined);
  for (const [k, v] of shown) t.push({ [k]: v === null ? '' : String(v) });
  return t.toString();
}

export function formatPrice(price: Partial<SupplierPrice> | undefined): string | undefined {
  if (!price?.net) return undefined;
  return `${price.net} ${price.currency ?? '(no currency)'}`;
}

/** `850 ms`, `4.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const s = Math.round(ms / 1_000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

const lastError = (s: OrderState) =>
  s.lastError ? `${s.lastError.code}: ${s.lastError.message}` : undefined;

/** The live state of a booking, as `status` shows it. */
export function renderState(state: OrderState): string {
  const d = state.pendingDecision;
  return keyValueTable([
    ['Order', state.orderId],
    ['Phase', state.phase],
    ['Supplier status', state.supplierStatus],
    ['Supplier booking id', state.bookingId],
    ['Price', formatPrice(state.price)],
    [
      'Awaiting decision',
      d
        ? `${d.status}: ${formatPrice(d.expected) ?? '?'} → ${formatPrice(d.offered) ?? '?'}` +
          `${d.increasePercent !== undefined ? ` (+${d.increasePercent} %)` : ''}, until ${d.deadline}`
        : undefined,
    ],
    ['Cancel requested', state.cancelRequested ? 'yes' : undefined],
    ['Last error', lastError(state)],
  ]);
}

/** The order's current truth (`BookingClient.state`), whichever workflow holds it. */
export function renderOrderState(state: OrderState): string {
  const terms = state.terms;
  return keyValueTable([
    ['Order', state.orderId],
    ['Truth', state.truth],
    ['Phase', state.phase],
    ['Held by', `${state.holder} (${state.workflowId}, ${state.open ? 'open' : 'closed'})`],
    ['Supplier status', state.supplierStatus],
    ['Supplier booking id', state.bookingId],
    ['Price', formatPrice(state.price)],
    ['Check-in', state.checkInAt ?? state.checkIn],
    ['Check-out', state.checkOutAt],
    [
      'Free cancellation until',
      terms
        ? terms.refundable === false
          ? 'none (non-refundable rate)'
          : (terms.freeCancellationUntil ?? 'unknown')
        : undefined,
    ],
    ['Next reconfirmation', state.nextReconfirmationAt],
    [
      'Reconfirmations',
      state.reconfirmations?.length
        ? state.reconfirmations.map((r) => `${r.at} ${r.status}`).join(', ')
        : undefined,
    ],
    ['Flag', state.flag ? `${state.flag.reason}: ${state.flag.message}` : undefined],
    [
      'Auto-cancel',
      state.autoCancel
        ? state.autoCancel.kept
          ? 'kept by the order system'
          : state.autoCancel.done
            ? 'ran'
            : `at ${state.autoCancel.at ?? 'unknown'} unless kept`
        : undefined,
    ],
    [
      'Cancellation',
      state.cancellation
        ? `${state.cancellation.outcome ?? 'in progress'} (by ${state.cancellation.by}${state.cancellation.reason ? `: ${state.cancellation.reason}` : ''}${state.cancellation.acceptPenalty ? ', penalty accepted' : ''})`
        : state.cancelRequested
          ? 'requested'
          : undefined,
    ],
    ['Refused', state.refusal?.message],
    ['Last error', lastError(state)],
  ]);
}

export function renderResult(result: BookRoomResult): string {
  return keyValueTable([
    ['Order', result.orderId],
    ['Outcome', result.outcome],
    ['Supplier booking id', result.bookingId],
    ['Supplier status', result.supplierStatus],
    ['Price', formatPrice(result.price)],
    ['Reason', result.reason],
    ['Error', result.error ? `${result.error.code}: ${result.error.message}` : undefined],
    [
      'Cancellation',
      result.cancellation
        ? `${result.cancellation.outcome}${result.cancellation.reason ? ` (${result.cancellation.reason})` : ''}`
        : undefined,
    ],
  ]);
}
