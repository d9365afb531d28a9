/**
 * Every visibility query the product issues, issued as it is (count and list) against the run's
 * Temporal server: the saved views, the worker's booking counts, the order-events backlog, the
 * doctor's, the earlier-runs check, the CLI's `list` and `replay`, and the probe that a search
 * attribute is usable. Server 1.32 made a new query converter the default (`IS NULL`, `!=`,
 * datetimes, parentheses): `TEMPORAL_RELEASE=oldest npm test` runs the same list on 1.30.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { everyRunQuery } from '../src/activities/earlier-runs';
import { bookingListQuery } from '../src/cli/commands/operator-commands';
import { defaultReplayQuery } from '../src/cli/commands/replay-command';
import { recentWorkflowsQuery } from '../src/doctor/namespace-facts';
import { BOOKING_COUNT_QUERIES, WAITING_PHASES } from '../src/observability/booking-counts';
import { savedQueries } from '../src/observability/saved-queries';
import { BookingOutcome, BookingPhase, CancellationOutcome } from '../src/shared/booking-values';
import { GuardPhase } from '../src/shared/guard-values';
import { ORDER_EVENTS_FAILING_QUERY } from '../src/order-events/contract/delivery';
import { ALL_SEARCH_ATTRIBUTE_KEYS, inEveryDivision } from '../src/shared/search-attributes';
import { connectTemporal, type TestTemporal } from './helpers/temporal';

/** Every query, by where it comes from. */
function productQueries(now: Date): [string, string][] {
  const queue = "hotel-booking-it's";
  return [
    ...savedQueries({ now }).map((v): [string, string] => [`saved view ${v.name}`, v.query]),
    ...WAITING_PHASES.map((p): [string, string] => [
      `count waiting ${p}`,
      BOOKING_COUNT_QUERIES.waiting(p),
    ]),
    ...Object.values(BookingOutcome).map((o): [string, string] => [
      `count outcome ${o}`,
      BOOKING_COUNT_QUERIES.outcome(o),
    ]),
    ...Object.values(CancellationOutcome).map((o): [string, string] => [
      `count cancellation ${o}`,
      BOOKING_COUNT_QUERIES.cancellation(o),
    ]),
    ['count reconfirmation flags', BOOKING_COUNT_QUERIES.reconfirmationFlags()],
    ['count cancellation pending', BOOKING_COUNT_QUERIES.cancellationPending()],
    ['count order events failing', BOOKING_COUNT_QUERIES.orderEventsFailing()],
    ['count still active since', BOOKING_COUNT_QUERIES.stillActiveSince(now)],
    ['events list', inEveryDivision(`${ORDER_EVENTS_FAILING_QUERY} AND TaskQueue = 'q\\'s'`)],
    ['doctor: recent workflows', recentWorkflowsQuery(queue)],
    ['earlier runs of an order', everyRunQuery("booking-ord-o'brien")],
    ['list', inEveryDivision(bookingListQuery(queue))],
    ['list --phase', inEveryDivision(bookingListQuery(queue, BookingPhase.NEEDS_RECONCILIATION))],
    [
      'list --phase (a guard phase)',
      inEveryDivision(bookingListQuery(queue, GuardPhase.CANCELLATION_PENDING)),
    ],
    ['replay', defaultReplayQuery(queue, 7, now)],
    [
      'search attributes usable',
      ALL_SEARCH_ATTRIBUTE_KEYS.map((k) => `${k.name} IS NOT NULL`).join(' AND '),
    ],
  ];
}

describe('every visibility query the product issues', () => {
  let t: TestTemporal;
  before(async () => {
    t = await connectTemporal();
  });
  after(async () => {
    await t?.close();
  });

  it('is accepted by the server, counted and listed', async () => {
    const queries = productQueries(new Date());
    assert.ok(queries.length >= 30, `${queries.length} queries`);
    const refused: string[] = [];
    for (const [what, query] of queries) {
      try {
        await t.client.workflow.count(query);
        for await (const _ of t.client.workflow.list({ query, pageSize: 1 })) break;
      } catch (err) {
        refused.push(`${what}: ${query}\n  ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    assert.deepEqual(refused, []);
  });

  it('a query the server cannot read is told apart (the check above can fail)', async () => {
    await assert.rejects(t.client.workflow.count("BookingPhase === 'x'"));
  });
});
