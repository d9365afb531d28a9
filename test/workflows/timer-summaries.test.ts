/**
 * Every timer the workflows start says what it waits for: the Temporal UI names a timer by its
 * summary (user metadata), else by its sequence number ("1" for a guard's months-long wait).
 * Checked in the sources (every `sleep` names a summary, no `condition` takes a timeout: the timed
 * wait is `waitUntil`, whose timer type requires one) and in real histories: a guarded stay, the
 * approval wait, a booking call sent again and the order events' delivery, on the dev server,
 * where every TimerStarted event carries a summary and none holds the guest's data.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import ts from 'typescript';
import { endpointDeliveryWorkflowId } from '../../src/order-events/contract/delivery';
import { WAKE_SUMMARIES } from '../../src/workflows/guard/guard-decisions';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import {
  bookingInput,
  eventually,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';
import { testDataConverter } from '../helpers/temporal';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const SRC = join(__dirname, '..', '..', 'src');
/** The workflow sources: src/workflows/ and order events' workflows. */
const WORKFLOW_DIRS = ['workflows', join('order-events', 'workflows')];

/**
 * The timers `source` starts without a summary: a `sleep` call with no options naming `summary`,
 * and a `condition` call with a timeout (the SDK's timer inside it has no summary here).
 */
function timersWithoutSummary(source: string, file = 'source.ts'): string[] {
  const found: string[] = [];
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      const [, second] = node.arguments;
      const named =
        second !== undefined &&
        (!ts.isObjectLiteralExpression(second) ||
          second.properties.some((p) => p.name?.getText(sf) === 'summary'));
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      if (name === 'sleep' && !named) found.push(`${file}:${line}: ${node.getText(sf)}`);
      if (name === 'condition' && node.arguments.length > 1)
        found.push(`${file}:${line}: ${node.getText(sf)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('timer summaries in the workflow sources', () => {
  it('every sleep names a summary, and no condition takes a timeout', () => {
    const files = WORKFLOW_DIRS.flatMap((dir) =>
      readdirSync(join(SRC, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(dir, f)),
    );
    assert.ok(files.length > 30, `${files.length} workflow files`);
    const sleeps = files.filter((f) => /\bsleep\(/.test(readFileSync(join(SRC, f), 'utf8')));
    assert.ok(sleeps.length >= 2, `sleep is called in ${sleeps.join(', ')}`);
    const missing = files.flatMap((f) =>
      timersWithoutSummary(readFileSync(join(SRC, f), 'utf8'), f),
    );
    assert.deepEqual(missing, []);
  });

  it('a timer without a summary is told apart (the check above can fail)', () => {
    assert.deepEqual(
      timersWithoutSummary(
        [
          'await sleep(1_000);',
          "await sleep('1h', { eventGroups: [] });",
          "await condition(() => done, '30 days');",
          "await sleep(ms, { summary: 'Next reconfirmation' });",
          'await sleep(ms, options);',
          'await condition(() => done);',
          '// condition(fn, ms) in a comment',
        ].join('\n'),
      ),
      [
        'source.ts:1: sleep(1_000)',
        "source.ts:2: sleep('1h', { eventGroups: [] })",
        "source.ts:3: condition(() => done, '30 days')",
      ],
    );
  });
});

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('timers in recorded histories', { concurrency: true }, () => {
  let s: BookingStack;
  let proxy: FaultProxy;
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver();
    s = await startBookingStack('timer-summaries', {
      front: async (simUrl) => (proxy = await startFaultProxy(simUrl)),
      orderEvents: {
        url: receiver.url,
        secret: receiver.secret,
        directPauseMs: 500,
        firstRetryWaitMs: 1_000,
      },
    });
  });
  after(async () => {
    await s?.close();
    await receiver?.close();
  });

  /** The summary of every timer the workflow's run started (undefined: none), decoded. */
  async function timerSummaries(workflowId: string): Promise<(string | undefined)[]> {
    const history = await s.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const summaries: (string | undefined)[] = [];
    for (const e of history.events ?? []) {
      if (e.eventType !== temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_STARTED) continue;
      const payload = e.userMetadata?.summary;
      if (!payload) {
        summaries.push(undefined);
        continue;
      }
      // Encrypted like every payload: the UI reads it through the codec server.
      const [plain] = await testDataConverter.payloadCodecs![0]!.decode([payload]);
      summaries.push(defaultPayloadConverter.fromPayload<string>(plain!));
    }
    return summaries;
  }

  /** Every timer has a summary, none names the guest; the summaries, for the caller's checks. */
  async function summarised(workflowId: string): Promise<string[]> {
    const summaries = await timerSummaries(workflowId);
    assert.ok(summaries.length > 0, `${workflowId} started a timer`);
    assert.deepEqual(
      summaries.filter((x) => x === undefined),
      [],
      `every timer of ${workflowId} has a summary: ${summaries.join(' | ')}`,
    );
    const all = summaries as string[];
    for (const personal of ['Ada', 'Lovelace', 'ada@example.com', '3331234567']) {
      assert.ok(!all.some((x) => x.includes(personal)), `no summary names ${personal}`);
    }
    return all;
  }

  it("a guarded stay's waits: the next reconfirmation, then check-out", async () => {
    const input = bookingInput('instant', {
      guard: { checkInAt: isoIn(15_000), checkOutAt: isoIn(17_000), reconfirmBefore: ['8s'] },
    });
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    await s.bookings.handle(input.orderId).result();
    const summaries = await summarised(s.bookings.handle(input.orderId).workflowId);
    assert.ok(summaries.includes(WAKE_SUMMARIES.reconfirm), summaries.join(' | '));
    assert.ok(summaries.includes(WAKE_SUMMARIES['check-out']), summaries.join(' | '));
  });

  it('the approval wait: its timeout', async () => {
    const input = bookingInput('policy-change', {
      priceChangePolicy: { approvalTimeout: '1s' },
      guard: { enabled: false },
    });
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'PRICE_REJECTED');
    const summaries = await summarised(s.bookings.handle(input.orderId).workflowId);
    assert.ok(
      summaries.some((x) => x.startsWith('Approval timeout')),
      summaries.join(' | '),
    );
  });

  it('a booking call sent again after a 429: the pause before it', async () => {
    const input = bookingInput('instant', { guard: { enabled: false } });
    const refused = proxy.add({
      method: 'POST',
      path: '/booking',
      bodyIncludes: input.orderId,
      times: 1,
      status: 429,
      body: '{"error":"rate limited"}',
    });
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    assert.equal(refused.answered(), 1);
    const summaries = await summarised(s.bookings.handle(input.orderId).workflowId);
    assert.ok(
      summaries.some((x) => x.startsWith('POST /booking again')),
      summaries.join(' | '),
    );
  });

  it("the order events' delivery: the wait for its next round", async () => {
    const endpoint = endpointDeliveryWorkflowId(s.taskQueue);
    const input = bookingInput('instant', { guard: { enabled: false } });
    receiver.fail(503, Infinity, 'order.confirmed');
    try {
      await s.bookings.startBooking(input);
      assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
      // The endpoint refuses: the event is handed to the endpoint's delivery, which waits.
      await eventually(
        async () => (await timerSummaries(endpoint).catch(() => [])).length > 0,
        60_000,
        "a timer in the endpoint's delivery",
      );
    } finally {
      receiver.fail(0, 0);
    }
    await summarised(endpoint);
  });
});
