/**
 * The operator's saved views (src/observability/saved-queries.ts) against a real server: each
 * parses, and finds the bookings it is meant to find and not the others.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { savedQueries, savedQueriesMarkdown } from '../../src/observability/saved-queries';
import {
  bookingInput,
  eventually,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

const DAY = 86_400_000;
const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);

describe('saved queries', () => {
  let s: BookingStack;
  const orders = {
    confirmed: bookingInput('instant', { checkIn: tomorrow }),
    notAvailable: bookingInput('not-available', { checkIn: tomorrow }),
    awaitingApproval: bookingInput('price-up', { param: 30 }),
    needsReconciliation: bookingInput('booking-lost'),
  };

  before(async () => {
    s = await startBookingStack('saved-queries');
    await Promise.all(Object.values(orders).map((o) => s.bookings.startBooking(o)));
    await s.bookings.result(orders.confirmed.orderId);
    await s.bookings.result(orders.notAvailable.orderId);
  });
  after(async () => {
    // The two open bookings would otherwise wait for a person forever.
    for (const o of [orders.awaitingApproval, orders.needsReconciliation]) {
      await s?.bookings
        .handle(o.orderId)
        .terminate('test over')
        .catch(() => undefined);
    }
    await s?.close();
  });

  /** The order ids a view finds among this test's bookings (visibility is eventually consistent). */
  async function found(name: string, expected: string[]): Promise<string[]> {
    // An approval cutoff a minute ahead, so a booking that just entered the phase qualifies.
    const view = savedQueries({ approvalWaitMinutes: -1 }).find((q) => q.name.startsWith(name));
    assert.ok(view, `a view named ${name}`);
    const query = `${view.query} AND TaskQueue = '${s.taskQueue}'`;
    return eventually(
      async () => {
        const ids: string[] = [];
        for await (const wf of s.temporal.client.workflow.list({ query })) {
          ids.push(wf.workflowId.replace(/^booking-/, ''));
        }
        ids.sort();
        return JSON.stringify(ids) === JSON.stringify([...expected].sort()) ? ids : undefined;
      },
      20_000,
      `${name}: ${expected.join(', ')} (query ${query})`,
    );
  }

  it('each daily view finds exactly the bookings it describes', async () => {
    await found('Needs reconciliation', [orders.needsReconciliation.orderId]);
    await found('Awaiting approval', [orders.awaitingApproval.orderId]);
    await found('Confirmed today', [orders.confirmed.orderId]);
    await found('Check-ins tomorrow, not confirmed', [orders.notAvailable.orderId]);
    await found('Failed today', []);
    await found('Cancellations the supplier never confirmed', []);
  });

  it('renders as a Markdown table for the README', () => {
    const md = savedQueriesMarkdown({ now: new Date('2026-03-01T08:00:00Z') });
    assert.match(md, /^\| view \| query \| what for \|$/m);
    assert.ok(md.includes("CheckInDate >= '2026-03-02T00:00:00Z'"));
    assert.ok(md.includes("StartTime < '2026-03-01T07:50:00Z'"));
    assert.equal(md.split('\n').length, 2 + savedQueries().length);
    // docs/operating.md shows the views of that moment as operators paste them.
    const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'operating.md'), 'utf8');
    for (const v of savedQueries({ now: new Date('2026-03-01T08:00:00Z') })) {
      const row = `| ${v.name} `;
      assert.ok(docs.includes(`\`${v.query.replaceAll('|', '\\|')}\``), `docs: ${v.name}'s query`);
      assert.ok(
        docs.split('\n').some((l) => l.startsWith(row)),
        `docs: a row for ${v.name}`,
      );
    }
  });
});
