/**
 * Property-based tests (fast-check) of the client boundary, hard rule 7 — bad
 * input gets a clear error before anything starts: named fields, nothing sent to the supplier, no
 * workflow started. And the converse: what the boundary accepts, the supplier accepts too (else
 * the error arrives late, after supplier calls). Also the CLI's `book` flags, and the hotel API
 * client's own boundary against the simulator (never a 5xx). The simulator's raw-HTTP fuzz lives
 * in test/simulator/robustness.test.ts and is not repeated here.
 *
 * Runs per property scale with FUZZ_RUNS (default 200 for pure properties).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import fc from 'fast-check';
import { z } from 'zod';
import { pathText } from '../../src/shared/booking-contract';
import { createBookingActivities } from '../../src/activities/booking';
import { formatCounts } from '../../tools/chaos/audit';
import { runCli } from '../../src/cli/program';
import {
  BookingInputError,
  bookingWorkflowId,
  validateBookRoomInput,
  type BookRoomInput,
} from '../../src/client';
import { loadConfig } from '../../src/config';
import { HotelApiClient, HotelApiError } from '../../src/hotel-api';
import { scenarioOptionId } from '../../tools/simulator';
import {
  COMPANY,
  bookingInput,
  eventually,
  hotelApiConfig,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
/** Properties that make RPCs or HTTP calls per run. */
const IO_RUNS = Math.max(20, Math.round(RUNS / 5));

/** Figures printed at the end: property → runs. */
const ran: Record<string, number> = {};
const count = (name: string) => () => {
  ran[name] = (ran[name] ?? 0) + 1;
};

// --- arbitraries ---------------------------------------------------------------------------------

const digits = '0123456789'.split('');
const orderIdChar = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-'.split(''),
);
const validOrderId = fc.string({ unit: orderIdChar, minLength: 1, maxLength: 64 });
const nonBlank = (max: number) =>
  fc.string({ minLength: 1, maxLength: max }).filter((s) => s.trim().length > 0);
/** Phones as the contract's regex allows them: digits, spaces, dashes, brackets, 4 to 20. */
const validPhone = fc
  .array(
    fc.oneof(
      { arbitrary: fc.constantFrom(...digits), weight: 4 },
      { arbitrary: fc.constantFrom(' ', '-', '(', ')'), weight: 3 },
    ),
    { minLength: 4, maxLength: 20 },
  )
  .map((cs) => cs.join(''))
  // The contract wants at least 4 digits among the separators.
  .filter((p) => (p.match(/\d/g)?.length ?? 0) >= 4);
/**
 * E-mail addresses the contract accepts (zod's e-mail rule is stricter than RFC 5322, so RFC
 * addresses are filtered through it), including long ones up to the 254-character limit.
 */
const contractEmail = z.email().max(254);
const validEmail = fc.oneof(
  fc.emailAddress().filter((e) => contractEmail.safeParse(e).success),
  fc
    .tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom('example.com', 'mail.example.org'))
    .map(([n, domain]) => `${'a'.repeat(n)}@${domain}`)
    .filter((e) => e.length <= 254),
);
const validRoom = fc.record(
  { firstName: nonBlank(100), lastName: nonBlank(100), notes: fc.string({ maxLength: 1000 }) },
  { requiredKeys: ['firstName', 'lastName'] },
);
const validCustomFields = fc.dictionary(
  fc.integer({ min: 1, max: 9 }).map((n) => `custom_field_${n}`),
  fc.string({ maxLength: 255 }),
  { maxKeys: 9 },
);

/** Valid `bookRoom` inputs (the option id is filled in per run). */
const validInput = fc.record(
  {
    orderId: validOrderId,
    rooms: fc.array(validRoom, { minLength: 1, maxLength: 3 }),
    contact: fc.record(
      {
        phonePrefix: fc.stringMatching(/^\+?\d{1,4}$/),
        phone: validPhone,
        email: validEmail,
      },
      { requiredKeys: ['phonePrefix', 'phone'] },
    ),
    customFields: validCustomFields,
  },
  { requiredKeys: ['orderId', 'rooms', 'contact'] },
);

/** One invalid change to a valid input: the field path it breaks and the value. */
interface Mutation {
  readonly path: readonly (string | number)[];
  readonly value: unknown;
  /** The field the error must name (dotted), when it differs from `path`. */
  readonly names?: string;
}

const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);
const blank = fc.stringMatching(/^[ \t\n]{0,5}$/);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .oneof(
      fc.constant(''),
      fc.string({ minLength: 65, maxLength: 100, unit: orderIdChar }),
      fc
        .tuple(validOrderId, fc.constantFrom(' ', '/', '#', 'é', '%', '\n', '*'))
        .map(([a, c]) => a + c),
      notAString,
    )
    .map((value) => ({ path: ['orderId'], value })),
  fc
    .oneof(
      blank,
      fc.string({ minLength: 513, maxLength: 600 }).filter((x) => x.trim().length > 512),
      notAString,
    )
    .map((value) => ({ path: ['optionId'], value })),
  fc
    .oneof(fc.constant([]), fc.constant({}), notAString)
    .map((value) => ({ path: ['rooms'], value })),
  fc
    .tuple(
      fc.constantFrom('firstName', 'lastName'),
      fc.oneof(
        blank,
        fc.string({ minLength: 101, maxLength: 130 }).filter((s) => s.trim().length > 100),
        notAString,
      ),
    )
    .map(([k, value]) => ({ path: ['rooms', 0, k], value })),
  fc
    .oneof(
      fc.string({ minLength: 1001, maxLength: 1100 }),
      notAString.filter((v) => v !== null),
    )
    .map((value) => ({ path: ['rooms', 0, 'notes'], value })),
  fc
    .oneof(
      fc.constant(''),
      fc.stringMatching(/^\+?\d{5,8}$/),
      fc.stringMatching(/^[a-z+]{1,4}$/),
      notAString,
    )
    .filter((v) => !(typeof v === 'string' && /^\+?\d{1,4}$/.test(v)))
    .map((value) => ({ path: ['contact', 'phonePrefix'], value })),
  fc
    .oneof(
      fc.stringMatching(/^\d{0,3}$/),
      fc.stringMatching(/^\d{21,25}$/),
      // Separators with fewer than 4 digits: the supplier reads them as empty.
      fc.stringMatching(/^[ ()-]{4,8}$/),
      fc.stringMatching(/^[ ()-]{2,6}\d{1,3}[ ()-]{1,4}$/),
      fc
        .tuple(fc.stringMatching(/^\d{4,10}$/), fc.constantFrom('a', 'x', '+', '.', '/'))
        .map(([a, b]) => a + b),
      notAString,
    )
    .map((value) => ({ path: ['contact', 'phone'], value })),
  fc
    .oneof(
      fc.constant(''),
      fc.string({ maxLength: 20 }).filter((s) => !s.includes('@')),
      fc.constant('a@b'),
      fc.constant('@example.com'),
      // Over the 254 characters the supplier accepts.
      fc.integer({ min: 243, max: 400 }).map((n) => `${'a'.repeat(n)}@example.com`),
      // null in an optional field is "absent" (rule 7), not an error.
      notAString.filter((v) => v !== null),
    )
    .map((value) => ({ path: ['contact', 'email'], value })),
  fc
    .oneof(
      fc.constant('custom_field_11'),
      fc.constant('custom_field_0'),
      fc.constant('notes'),
      fc.constant('custom_field_1 '),
    )
    .map((key) => ({ path: ['customFields', key], value: 'x' })),
  fc
    .tuple(
      fc.integer({ min: 1, max: 9 }),
      fc.oneof(fc.string({ minLength: 256, maxLength: 300 }), fc.integer()),
    )
    .map(([n, value]) => ({ path: ['customFields', `custom_field_${n}`], value })),
  fc
    .string({ maxLength: 20 })
    .map((value) => ({ path: ['customFields', 'custom_field_10'], value })),
  fc
    .oneof(
      fc.constantFrom('12,50', '1e3', '', 'abc', '12.', '.5', ' 12'),
      fc.double({ noNaN: true }),
    )
    .map((value) => ({ path: ['expectedPrice', 'net'], value })),
  fc
    .oneof(fc.constantFrom('eur', 'EURO', 'E', '', '€'), notAString)
    .map((value) => ({ path: ['expectedPrice', 'currency'], value })),
  fc
    .oneof(
      fc.double({ max: -0.001, noNaN: true }),
      fc.double({ min: 100.001, noNaN: true }),
      fc.constant(Number.NaN),
      fc.constant('5'),
    )
    .map((value) => ({ path: ['priceChangePolicy', 'maxIncreasePercent'], value })),
  fc
    .oneof(fc.constantFrom('0s', 'never', '', '-5m', '15 minutes', 0, -1), fc.constant(true))
    .map((value) => ({ path: ['priceChangePolicy', 'approvalTimeout'], value })),
  fc
    .constantFrom('soon', '0s', 0, -1, '', 'P1D')
    .map((value) => ({ path: ['confirmationDeadline'], value })),
  fc
    .constantFrom('2026-02-30', '20260101', '2026-1-1', 'tomorrow', '', 20260101)
    .map((value) => ({ path: ['checkIn'], value })),
  fc
    .oneof(fc.double({ max: 0.999, noNaN: true }), fc.double({ min: 10.001, noNaN: true }))
    .map((value) => ({ path: ['polling', 'backoffCoefficient'], value })),
  fc
    .constantFrom('fast', '0ms', '', -1)
    .map((value) => ({ path: ['polling', 'initialInterval'], value })),
  fc
    .string({
      minLength: 1,
      maxLength: 12,
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split('')),
    })
    .filter(
      (k) =>
        ![
          'orderId',
          'optionId',
          'rooms',
          'contact',
          'customFields',
          'expectedPrice',
          'priceChangePolicy',
          'confirmationDeadline',
          'cancelOnConfirmationTimeout',
          'cancellationDeadline',
          'checkIn',
          'polling',
        ].includes(k) && !['constructor', 'toString', 'valueOf', '__proto__'].includes(k),
    )
    .map((key) => ({ path: [key], value: 'surprise', names: key })),
);

/** A deep copy of `input` with `m` applied (creating parent objects on the way). */
function apply(input: BookRoomInput, m: Mutation): Record<string, unknown> {
  const copy = structuredClone(input) as unknown as Record<string, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const key of m.path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[m.path[m.path.length - 1]!] = m.value;
  return copy;
}

/** The error names the mutated field: as an issue path, or (unknown keys) in the message. */
function namesField(err: BookingInputError, m: Mutation): boolean {
  const field = pathText(m.path);
  const parent = pathText(m.path.slice(0, -1));
  return err.issues.some(
    (i) =>
      i.field === field ||
      i.field.startsWith(`${field}.`) ||
      (m.names !== undefined && i.message.includes(m.names)) ||
      // An unknown key is reported on its parent object, naming the key.
      (i.message.includes(String(m.path[m.path.length - 1])) &&
        (i.field === parent || i.field === '(input)')),
  );
}

const baseInput = (): BookRoomInput => ({
  orderId: 'ord-prop-1',
  optionId: scenarioOptionId('instant'),
  rooms: [{ firstName: 'Ada', lastName: 'Lovelace', notes: 'late arrival' }],
  contact: { phonePrefix: '+39', phone: '3331234567', email: 'ada@example.com' },
  customFields: { custom_field_1: 'VIP' },
  expectedPrice: { net: '120.50', currency: 'EUR' },
  priceChangePolicy: { maxIncreasePercent: 5, approvalTimeout: '15m' },
  confirmationDeadline: '48h',
  checkIn: '2026-06-01',
  polling: { initialInterval: '5s', maximumInterval: '5m', backoffCoefficient: 1.5 },
});

// --- pure properties -----------------------------------------------------------------------------

after(() => {
  console.log(`client boundary property runs: ${formatCounts(ran)}`);
});

describe('validateBookRoomInput (property-based)', () => {
  it('accepts the base input the mutations start from', () => {
    assert.doesNotThrow(() => validateBookRoomInput(baseInput()));
  });

  it('rejects every single-field mutation with a BookingInputError naming that field', () => {
    fc.assert(
      fc.property(mutation, (m) => {
        count('single-field mutations')();
        const input = apply(baseInput(), m);
        let err: unknown;
        try {
          validateBookRoomInput(input);
        } catch (e) {
          err = e;
        }
        assert.ok(err instanceof BookingInputError, `accepted ${JSON.stringify(m)}`);
        assert.ok(
          namesField(err, m),
          `${JSON.stringify(m.path)} not named in: ${JSON.stringify(err.issues)}`,
        );
      }),
      { numRuns: RUNS * 5 },
    );
  });

  it('rejects arbitrary values (not objects of the right shape) with a BookingInputError, never another exception', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true }), (junk) => {
        count('arbitrary values')();
        assert.throws(() => validateBookRoomInput(junk), BookingInputError);
      }),
      { numRuns: RUNS * 5 },
    );
  });

  it('accepts inputs generated from the contract (the generators are right)', () => {
    fc.assert(
      fc.property(validInput, (v) => {
        count('valid inputs')();
        validateBookRoomInput({ ...v, optionId: 'opt' });
      }),
      { numRuns: RUNS },
    );
  });
});

// --- against a worker, Temporal and the simulator ------------------------------------------------

describe('the client boundary against a real stack', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('client-boundary');
  });
  after(async () => {
    await s?.close();
  });

  it('startBooking with an invalid input throws BookingInputError, starts no workflow and calls no supplier endpoint', async () => {
    const before = s.sim.requests().total;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        count('startBooking with invalid input')();
        n += 1;
        const input = apply({ ...baseInput(), orderId: `ord-invalid-${process.pid}-${n}` }, m);
        await assert.rejects(s.bookings.startBooking(input as BookRoomInput), BookingInputError);
        const orderId = typeof input.orderId === 'string' ? input.orderId : undefined;
        if (orderId !== undefined && orderId.length > 0 && orderId.length < 200) {
          await assert.rejects(
            s.bookings.client.workflow.getHandle(bookingWorkflowId(orderId)).describe(),
            WorkflowNotFoundError,
          );
        }
      }),
      { numRuns: IO_RUNS },
    );
    const listed = [];
    for await (const wf of s.temporal.client.workflow.list({
      query: `TaskQueue = '${s.taskQueue}'`,
    }))
      listed.push(wf.workflowId);
    assert.deepEqual(listed, [], 'no workflow on the task queue');
    assert.equal(s.sim.requests().total - before, 0, 'no supplier call');
  });

  it('every input the boundary accepts is accepted by the booking call too (no late validation failure)', async () => {
    const activities = createBookingActivities({
      hotelApi: s.hotelApi,
      orderIdField: 'custom_field_10',
    });
    const noop = () => undefined;
    const env = new MockActivityEnvironment(
      {},
      { logger: { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop } },
    );
    await fc.assert(
      fc.asyncProperty(validInput, async (v) => {
        count('accepted input → supplier booking')();
        // The option fixes the number of rooms (the supplier checks it): one option per shape.
        const optionId = scenarioOptionId('instant', { rooms: v.rooms.length });
        const input = validateBookRoomInput({ ...v, optionId });
        const pc = await s.hotelApi.priceCheck({ optionId });
        assert.ok(pc.booking_id);
        try {
          const r: { status: string } = await env.run(activities.createBooking, {
            orderId: input.orderId,
            token: pc.booking_id,
            rooms: input.rooms,
            contact: input.contact,
            customFields: input.customFields,
          });
          assert.equal(r.status, 'CONFIRMED');
        } catch (err) {
          const code = (err as { type?: string }).type ?? (err as HotelApiError).code;
          assert.fail(
            `the client boundary accepted an input the booking call rejects (${code}): ${(err as Error).message}`,
          );
        }
      }),
      { numRuns: IO_RUNS },
    );
  });

  it('a phone number of spaces is rejected at the boundary, before any supplier call', async () => {
    // Found by the property above: the contract's phone regex admits "    ", which the hotel API
    // client (and the supplier) reject as empty, so the workflow starts, price-checks, and fails.
    const input = bookingInput('instant', {
      contact: { phonePrefix: '+39', phone: '    ', email: 'ada@example.com' },
    });
    const before = s.sim.requests().total;
    let accepted = false;
    try {
      await s.bookings.startBooking(input);
      accepted = true;
    } catch (err) {
      assert.ok(err instanceof BookingInputError);
      assert.ok(err.issues.some((i) => i.field === 'contact.phone'));
    }
    if (accepted) {
      const r = await s.bookings.result(input.orderId);
      const calls = s.sim.requests().total - before;
      assert.fail(
        `startBooking accepted phone "    ": workflow started, ${calls} supplier calls, outcome ${r.outcome} (${r.error?.code}: ${r.reason})`,
      );
    }
  });

  it('an e-mail address over 254 characters is rejected at the boundary, before any supplier call', async () => {
    const input = bookingInput('instant', {
      contact: { phonePrefix: '+39', phone: '3331234567', email: `${'a'.repeat(250)}@example.com` },
    });
    const before = s.sim.requests().total;
    let accepted = false;
    try {
      await s.bookings.startBooking(input);
      accepted = true;
    } catch (err) {
      assert.ok(err instanceof BookingInputError);
      assert.ok(err.issues.some((i) => i.field === 'contact.email'));
    }
    if (accepted) {
      const r = await s.bookings.result(input.orderId);
      const calls = s.sim.requests().total - before;
      assert.fail(
        `startBooking accepted a 262-character e-mail: workflow started, ${calls} supplier calls, outcome ${r.outcome} (${r.error?.code}: ${r.reason})`,
      );
    }
  });

  it('the hotel API client never gets a 5xx or a contract error from the simulator, whatever the ids', async () => {
    const api = new HotelApiClient(hotelApiConfig(s.simUrl));
    const before = s.sim.requests();
    const idLike = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.constant(Number.MAX_SAFE_INTEGER + 2),
      fc.constant(0),
      fc.constant(-1),
    );
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc
              .string({ maxLength: 80 })
              .map((optionId) => ({ kind: 'price-check' as const, optionId })),
            fc
              .string({ unit: 'binary', maxLength: 40 })
              .map((optionId) => ({ kind: 'price-check' as const, optionId })),
            idLike.map((bookingId) => ({ kind: 'retrieve' as const, bookingId })),
            idLike.map((bookingId) => ({ kind: 'cancel' as const, bookingId })),
          ),
          async (call) => {
            count('hotel API client calls with arbitrary ids')();
            try {
              if (call.kind === 'price-check') await api.priceCheck({ optionId: call.optionId });
              else if (call.kind === 'retrieve')
                await api.retrieveBooking({ bookingId: call.bookingId });
              else await api.cancelBooking({ bookingId: call.bookingId });
            } catch (err) {
              assert.ok(err instanceof HotelApiError, String(err));
              assert.ok(
                ['INVALID_REQUEST', 'VALIDATION', 'NOT_FOUND'].includes(err.code),
                `${call.kind} ${JSON.stringify(call)} → ${err.code} (${err.statusCode}): ${err.message}`,
              );
            }
          },
        ),
        { numRuns: RUNS },
      );
    } finally {
      await api.close();
    }
    const after = s.sim.requests();
    const fiveXx = Object.entries(after.byStatus)
      .filter(([status]) => status.startsWith('5'))
      .reduce((sum, [, n]) => sum + n, 0);
    assert.equal(fiveXx, 0, 'no 5xx');
    assert.equal(after.internalErrors - before.internalErrors, 0);
  });
});

// --- the CLI's book flags --------------------------------------------------------------------------

describe('hotel-booking book with invalid flags (property-based)', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('cli-boundary');
  });
  after(async () => {
    await s?.close();
  });

  /** One bad flag, and the text the error must contain. */
  const badFlag: fc.Arbitrary<{ flags: Record<string, string | string[]>; names: string }> =
    fc.oneof(
      fc
        .constantFrom('bad id!', 'x'.repeat(65), 'ord/1', '')
        .map((v) => ({ flags: { '--order': v }, names: '--order' })),
      fc
        .constantFrom('abc', '12', '1234567890123456789012', '333-abc')
        .map((v) => ({ flags: { '--phone': v }, names: '--phone' })),
      fc
        .constantFrom('12345', 'abc', '+')
        .map((v) => ({ flags: { '--phone-prefix': v }, names: '--phone-prefix' })),
      fc
        .constantFrom('not-an-email', 'a@b', '@x.com')
        .map((v) => ({ flags: { '--email': v }, names: '--email' })),
      fc
        .constantFrom('Ada', '   ', 'Lovelace,')
        .map((v) => ({ flags: { '--guest': [v] }, names: '--guest' })),
      fc
        .constantFrom('abc', '150', '-1', '')
        .map((v) => ({ flags: { '--max-increase': v }, names: '--max-increase' })),
      fc
        .constantFrom('never', '0s', '-5m')
        .map((v) => ({ flags: { '--approval-timeout': v }, names: '--approval-timeout' })),
      fc.constantFrom('soon', '0').map((v) => ({
        flags: { '--confirmation-deadline': v },
        names: '--confirmation-deadline',
      })),
      fc
        .constantFrom('2026-02-30', 'tomorrow')
        .map((v) => ({ flags: { '--checkin': v }, names: '--checkin' })),
      fc.constantFrom('12,50', 'abc').map((v) => ({
        flags: { '--expected-net': v, '--expected-currency': 'EUR' },
        names: '--expected-net',
      })),
      fc.constantFrom('eur', 'EURO').map((v) => ({
        flags: { '--expected-net': '100.00', '--expected-currency': v },
        names: '--expected-currency',
      })),
      fc
        .constantFrom('custom_field_10=x', 'custom_field_11=x', 'nonsense', '=x')
        .map((v) => ({ flags: { '--custom-field': [v] }, names: '--custom-field' })),
      fc
        .constantFrom('fast', '0ms')
        .map((v) => ({ flags: { '--poll-interval': v }, names: '--poll-interval' })),
    );

  it('exits 2 naming the flag, starts no workflow and calls no supplier endpoint', async () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: s.taskQueue,
      HOTEL_API_BASE_URL: s.simUrl,
      HOTEL_API_KEY: COMPANY.key,
      HOTEL_API_SECRET: COMPANY.secret,
    });
    const before = s.sim.requests().total;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(badFlag, async (bad) => {
        count('CLI book with one bad flag')();
        n += 1;
        const orderId = `ord-cli-${process.pid}-${n}`;
        const flags: Record<string, string | string[]> = {
          '--order': orderId,
          '--option': scenarioOptionId('instant'),
          '--guest': ['Ada Lovelace'],
          '--phone-prefix': '+39',
          '--phone': '3331234567',
          ...bad.flags,
        };
        const args = [
          'book',
          ...Object.entries(flags).flatMap(([k, v]) =>
            Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, v],
          ),
        ];
        let stdout = '';
        let stderr = '';
        const code = await runCli(args, {
          io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
          loadConfig: () => config,
        });
        assert.equal(code, 2, `${args.join(' ')} → exit ${code}\n${stdout}${stderr}`);
        assert.ok(stderr.includes(bad.names), `${bad.names} not named in: ${stderr}`);
        const id = String(flags['--order']);
        if (/^[A-Za-z0-9._-]{1,64}$/.test(id))
          await assert.rejects(
            s.temporal.client.workflow.getHandle(bookingWorkflowId(id)).describe(),
            WorkflowNotFoundError,
          );
      }),
      { numRuns: IO_RUNS },
    );
    await eventually(async () => true);
    assert.equal(s.sim.requests().total - before, 0, 'no supplier call');
  });
});
