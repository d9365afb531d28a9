/**
 * The `scale` part's history scan: workflow task timeouts counted in the histories themselves,
 * where the server records them (the worker never sees one).
 */
import { temporal as proto } from '@temporalio/proto';
import type { BookingClient, BookRoomInput } from '../../src/client';
import { forEachLimit } from '../shared/waiting-population';

const WFT_TIMED_OUT = proto.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT;

/** `WorkflowTaskTimedOut` events, by timeout type, in the histories of the first `sample` inputs. */
export async function workflowTaskTimeouts(
  bookings: BookingClient,
  inputs: readonly BookRoomInput[],
  sample: number,
) {
  const scanned = inputs.slice(0, Math.min(sample, inputs.length));
  let count = 0;
  const types: Record<string, number> = {};
  await forEachLimit(scanned, 16, async (input) => {
    const history = await bookings.handle(input.orderId).fetchHistory();
    for (const e of history.events ?? []) {
      if (e.eventType !== WFT_TIMED_OUT) continue;
      count += 1;
      const type = e.workflowTaskTimedOutEventAttributes?.timeoutType ?? 0;
      const name = proto.api.enums.v1.TimeoutType[type] ?? String(type);
      types[name] = (types[name] ?? 0) + 1;
    }
  });
  return { count, types, scanned: scanned.length };
}
