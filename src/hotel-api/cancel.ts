/** `DELETE /cancel`: 204 means cancelled; 202 means the outcome is not known yet (rule 4). */
import { z } from 'zod';
import { endpointSpec, prepared, type PreparedRequest } from './endpoint';
import { PositiveId, validateRequest } from './validation';

export const CANCEL_BOOKING = endpointSpec('DELETE', '/cancel', 'read');

export const CancelQuery = z.strictObject({ booking_id: PositiveId });

export interface CancelParams {
  readonly bookingId: number;
}

/**
 * The 202 body. The seed lists `OK`, `NOT AVAILABLE`, `PRICE CHANGE`, `POLICY CHANGE` for
 * `status`, an odd set for a cancel; we accept any string so a surprise there never turns a
 * harmless re-sendable cancel into a CONTRACT failure.
 */
export const CancelResponse = z.looseObject({
  status: z.string(),
  /** Says the booking could not be found or is already cancelled. */
  message: z.string().nullable().default(null),
});

/** What `cancelBooking` resolves to. */
export type CancelResult =
  | { readonly outcome: 'CANCELLED' }
  | { readonly outcome: 'PENDING'; readonly status: string; readonly message: string | null };

const PendingCancel = CancelResponse.transform((b): CancelResult => ({
  outcome: 'PENDING',
  status: b.status,
  message: b.message,
}));

const RESPONSES: PreparedRequest<CancelResult>['responses'] = {
  204: { empty: { outcome: 'CANCELLED' } },
  202: { json: PendingCancel },
};

export function prepareCancel(params: CancelParams): PreparedRequest<CancelResult> {
  const q = validateRequest(CancelQuery, { booking_id: params.bookingId }, CANCEL_BOOKING);
  return prepared(CANCEL_BOOKING, [['booking_id', String(q.booking_id)]], RESPONSES);
}
