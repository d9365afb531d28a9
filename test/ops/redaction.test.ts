/**
 * The logger's redaction and final scrub, on lines written to memory: what the worker's logs
 * would show if a secret or a guest's data ever reached a log call.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, REDACTED, temporalLogger } from '../../src/observability/logger';

function memoryLogger(secrets: string[] = []) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: 'trace', secrets, destination });
  return {
    logger,
    lines,
    parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const SECRET = 'sk_live_Sentinel"with\\quotes';

describe('log redaction', () => {
  it('redacts credentials and guest data by key, at any depth', () => {
    const { logger, lines } = memoryLogger();
    logger.info(
      {
        authorization: 'API-Key=k,Signature=abc,Timestamp=1',
        input: {
          rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
          contact: { phone: '3331234567', email: 'ada@example.com' },
        },
        request: {
          body: { deep: { lead_first_name: 'Grace', lead_last_name: 'Hopper', phone_number: 42 } },
        },
        headers: { Authorization: 'Bearer t0ken' },
        orderId: 'ord-1',
      },
      'booking request',
    );
    const text = lines.join('\n');
    for (const leaked of ['Ada', 'Lovelace', '3331234567', 'ada@example.com', 'Grace', 'Hopper']) {
      assert.ok(!text.includes(leaked), `${leaked} is redacted`);
    }
    assert.ok(!text.includes('Signature=abc') && !text.includes('t0ken'));
    assert.ok(text.includes('"orderId":"ord-1"'), 'ordinary fields stay');
    assert.ok(text.includes(REDACTED));
    assert.ok(!/"phone_number":42/.test(text), 'numbers are redacted too');
  });

  it('scrubs the configured secret wherever it appears, also JSON-escaped', () => {
    const { logger, lines } = memoryLogger([SECRET]);
    logger.error(
      { err: new Error(`signing with ${SECRET} failed`), note: SECRET },
      `msg ${SECRET}`,
    );
    const text = lines.join('\n');
    assert.ok(!text.includes('Sentinel'), text);
    assert.equal(lines.length, 1);
    JSON.parse(lines[0]!); // still one valid JSON object
  });

  it('keeps payload bodies out of SDK trace lines (activations carry the workflow arguments)', () => {
    const { logger, lines } = memoryLogger();
    const sdk = temporalLogger(logger, 'TRACE');
    const guest = Buffer.from(JSON.stringify({ rooms: [{ firstName: 'Zebulon' }] }));
    const activation = {
      runId: 'r1',
      jobs: [
        {
          initializeWorkflow: {
            workflowId: 'booking-ord-1',
            arguments: [{ metadata: { encoding: Buffer.from('json/plain') }, data: guest }],
          },
        },
      ],
      historySizeBytes: 1234n,
    };
    sdk.trace('Got workflow activation', activation);
    // The SDK decodes the activation in place after logging it: the line must not follow.
    activation.jobs[0]!.initializeWorkflow.arguments[0]!.data = Buffer.from('changed');
    const text = lines.join('\n');
    assert.ok(!text.includes(guest.toString('base64').slice(0, 12)), text);
    assert.ok(!text.includes('Zebulon'));
    assert.match(text, /"workflowId":"booking-ord-1"/);
    assert.match(text, /payload, \d+ bytes/);
    assert.match(text, /"historySizeBytes":"?1234"?/, 'bigints do not break the line');
  });

  it("puts the Temporal SDK's metadata on the line as fields", () => {
    const { logger, parsed } = memoryLogger();
    const sdk = temporalLogger(logger, 'DEBUG');
    sdk.info('Activity completed', {
      workflowId: 'booking-ord-1',
      activityId: '3',
      activityType: 'createBooking',
      level: 'clash',
    });
    sdk.trace('below the level: dropped');
    const [line] = parsed();
    assert.equal(line?.msg, 'Activity completed');
    assert.equal(line?.level, 'info');
    assert.equal(line?.workflowId, 'booking-ord-1');
    assert.equal(line?.activityType, 'createBooking');
    assert.equal(line?.sdk_level, 'clash', 'a metadata key pino owns is renamed, not duplicated');
    assert.equal(parsed().length, 1);
  });
});
