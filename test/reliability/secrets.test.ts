/**
 * The API secret and the authorization header never appear in logs, errors,
 * workflow history or test output. Bookings that succeed and that fail every way (401, 403, 5xx,
 * lost answer, timeout, 422) run through the worker subprocess, signed with a sentinel secret, at
 * the most talkative log level; then the worker's output, every history (raw, and decoded with the
 * codec), every result and state, and the hotel API client's errors are searched.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { formatCounts, reconcileAll, waitForSettled } from '../../tools/chaos/audit';
import { mixInput, orderIdFor, type MixEntry } from '../../tools/chaos/booking-mix';
import { startChaosStack, type ChaosStack } from '../../tools/chaos/chaos-stack';
import { decodeHistory, rawHistoryBytes } from '../../tools/chaos/history-scan';
import { findSentinels, formatHit, type SentinelHit } from '../../tools/chaos/sentinel-scan';
import { bookingWorkflowId } from '../../src/client';
import { HotelApiClient } from '../../src/hotel-api';
import { bookingStateQuery } from '../../src/shared/booking-messages';
import { scenarioOptionId } from '../../tools/simulator';
import { eventually, hotelApiConfig } from '../helpers/booking-stack';

const SECRET = `zqxSecretSentinel${Date.now().toString(36)}Q7`;
const KEY = 'zqx-secrets-key';
/** An authorization header or a signature, in any of the forms it could be printed. */
const HEADER_PATTERNS = [/Signature=[0-9a-f]{8,}/i, /API-Key=[^,\s"]+,\s*Signature=/i];

interface Finding {
  readonly where: string;
  readonly what: string;
}

function scan(where: string, bytes: Buffer | string): Finding[] {
  const buf = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const out: Finding[] = findSentinels(buf, [SECRET], where).map((h: SentinelHit) => ({
    where,
    what: formatHit(h),
  }));
  const text = buf.toString('utf8');
  for (const re of HEADER_PATTERNS) {
    const m = re.exec(text);
    if (m)
      out.push({
        where,
        what: `${re} at ${m.index}: …${text.slice(Math.max(0, m.index - 60), m.index + 80)}…`,
      });
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('secrets', () => {
  let s: ChaosStack;
  before(async () => {
    s = await startChaosStack({
      name: 'secrets',
      workDir: mkdtempSync(join(process.env.TEST_WORK_DIR ?? tmpdir(), 'secrets-')),
      company: { key: KEY, secret: SECRET },
      workerEnv: { LOG_LEVEL: 'trace', HOTEL_API_BOOKING_TIMEOUT_MS: '1500' },
    });
  });
  after(async () => {
    await s?.close();
  });

  it('never shows the API secret or a signed authorization header, in success and in every failure', async () => {
    const run = `secrets-${Date.now().toString(36)}`;
    const entry = (scenario: MixEntry['scenario'], param?: number): MixEntry => ({
      scenario,
      ...(param !== undefined ? { param } : {}),
      weight: 1,
      expect: 'CONFIRMED',
    });
    const mix: MixEntry[] = [
      entry('instant'),
      entry('confirm-after-polls', 2),
      entry('booking-5xx'), // 500 → NEEDS_RECONCILIATION
      entry('booking-lost'), // connection destroyed → NEEDS_RECONCILIATION
      entry('booking-slow', 4_000), // answer after the 1.5 s timeout → NEEDS_RECONCILIATION
      entry('sold-out'), // 422
      entry('price-check-5xx', 2), // 503s, retried
      entry('not-available'),
    ];
    const inputs = mix.map((e, i) => mixInput(e, orderIdFor(run, i)));
    for (const input of inputs) await s.bookings.startBooking(input);
    const polling = [0, 1].map((i) =>
      mixInput(entry('confirm-after-polls', 100_000), orderIdFor(`${run}-poll`, i)),
    );
    for (const input of polling) await s.bookings.startBooking(input);
    await eventually(
      async () => {
        const phases = await Promise.all(polling.map((i) => s.bookings.state(i.orderId)));
        return phases.every((p) => p.phase === 'AWAITING_CONFIRMATION');
      },
      30_000,
      'polling',
    );
    const ids = inputs.map((i) => i.orderId);
    const settled = await waitForSettled(s.client, ids, { timeoutMs: 40_000 });

    // 401 for the bookings polling and for a new one, then 403 for another.
    s.sim.revokeCompany(KEY);
    const after401 = mixInput(entry('instant'), orderIdFor(`${run}-401`, 0));
    await s.bookings.startBooking(after401);
    await waitForSettled(s.client, [...polling.map((i) => i.orderId), after401.orderId], {
      timeoutMs: 30_000,
    });
    s.sim.upsertCompany({ key: KEY, secret: SECRET, active: false });
    const after403 = mixInput(entry('instant'), orderIdFor(`${run}-403`, 0));
    await s.bookings.startBooking(after403);
    await waitForSettled(s.client, [after403.orderId], { timeoutMs: 30_000 });
    s.sim.upsertCompany({ key: KEY, secret: SECRET, active: true });

    const waiting = ids.filter((id) => settled.get(id)?.kind === 'reconciliation');
    await reconcileAll(s.bookings, s.sim, waiting);
    const all = [...ids, ...polling.map((i) => i.orderId), after401.orderId, after403.orderId];
    const final = await waitForSettled(s.client, all, { timeoutMs: 30_000 });

    const findings: Finding[] = [];
    const outcomes: Record<string, number> = {};
    let historyBytes = 0;
    for (const id of all) {
      const st = final.get(id);
      if (st?.kind === 'final') {
        const key = `${st.outcome}${st.result.error ? `/${st.result.error.code}` : ''}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        findings.push(...scan(`result ${id}`, JSON.stringify(st.result)));
        findings.push(
          ...scan(
            `state ${id}`,
            JSON.stringify(await s.bookings.handle(id).query(bookingStateQuery)),
          ),
        );
      }
      const history = await s.rawClient.workflow.getHandle(bookingWorkflowId(id)).fetchHistory();
      const raw = rawHistoryBytes(history);
      historyBytes += raw.length;
      findings.push(...scan(`raw history ${id}`, raw));
      findings.push(
        ...scan(`decoded history ${id}`, (await decodeHistory(history, s.codec)).bytes),
      );
    }

    // The hotel API client's own errors, as a caller would print them.
    const api = new HotelApiClient(
      hotelApiConfig(s.simOrigin, {
        key: KEY,
        secret: SECRET,
        timeouts: { bookingMs: 1_000, readMs: 1_000, searchMs: 1_000 },
      }),
    );
    const errors: unknown[] = [];
    const capture = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => void errors.push(e),
      );
    try {
      const token = async (scenario: MixEntry['scenario'], param?: number) =>
        (
          await api.priceCheck({
            optionId: scenarioOptionId(scenario, param !== undefined ? { param } : {}),
          })
        ).booking_id!;
      const body = {
        room_detail: [{ lead_first_name: 'Ada', lead_last_name: 'Lovelace' }],
        phone_number_prefix: '+39',
        phone_number: '333',
      };
      await capture(api.createBooking({ optionId: await token('booking-5xx'), body }));
      await capture(api.createBooking({ optionId: await token('booking-lost'), body }));
      await capture(api.createBooking({ optionId: await token('booking-slow', 3_000), body }));
      await capture(api.createBooking({ optionId: await token('sold-out'), body }));
      await capture(api.retrieveBooking({ bookingId: 1 }));
      s.sim.revokeCompany(KEY);
      await capture(api.priceCheck({ optionId: scenarioOptionId('instant') }));
      s.sim.upsertCompany({ key: KEY, secret: SECRET, active: false });
      await capture(api.priceCheck({ optionId: scenarioOptionId('instant') }));
    } finally {
      s.sim.upsertCompany({ key: KEY, secret: SECRET, active: true });
      await api.close();
    }
    const errorCodes: string[] = [];
    for (const [i, err] of errors.entries()) {
      errorCodes.push((err as { code?: string }).code ?? '?');
      const printed = [
        String(err),
        (err as Error).stack ?? '',
        JSON.stringify(err),
        inspect(err, { depth: null, showHidden: true }),
      ].join('\n');
      findings.push(...scan(`client error ${i} (${(err as { code?: string }).code})`, printed));
    }

    await sleep(500); // the worker's last log lines
    const output = s.worker.output();
    findings.push(...scan('worker output', output));

    const summary = [
      `secrets: sentinel secret ${SECRET.length} chars; ${all.length} bookings: ${formatCounts(outcomes)}`,
      `  searched: worker output ${output.length} bytes (LOG_LEVEL=trace), ${all.length} histories raw and decoded (${historyBytes} raw bytes), ${all.length} results and states, ${errors.length} client errors (${errorCodes.join(', ')})`,
      `  hits of the secret (any encoding) or of a signed header: ${findings.length}`,
    ].join('\n');
    findings.push(...scan('test output', summary));
    // Control: the scan does find the secret, also in base64, and a signed header.
    assert.equal(scan('control', `x${SECRET}x`).length, 1);
    assert.equal(scan('control', Buffer.from(`{"k":"${SECRET}"}`).toString('base64')).length, 1);
    assert.equal(
      scan('control', `API-Key=${KEY},Signature=0123456789abcdef,Timestamp=1`).length,
      2,
    );
    console.log(summary);
    assert.deepEqual(
      findings.map((f) => `${f.where}: ${f.what}`),
      [],
    );
    for (const code of [
      'AUTH_INVALID',
      'ACCOUNT_INACTIVE',
      'SUPPLIER_UNAVAILABLE',
      'CONNECTION_LOST',
      'TIMEOUT',
      'VALIDATION',
      'NOT_FOUND',
    ])
      assert.ok(
        errorCodes.includes(code),
        `the client errors include ${code}: ${errorCodes.join(', ')}`,
      );
    assert.ok(Object.keys(outcomes).some((k) => k.includes('AUTH_INVALID')));
    assert.ok(Object.keys(outcomes).some((k) => k.includes('ACCOUNT_INACTIVE')));
  });
});
