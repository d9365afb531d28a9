/**
 * The workflows check their inputs without zod when they can
 * (src/shared/input-fast-path.ts) and ask the zod schema otherwise (src/workflows/input-checks.ts).
 * Properties, with generated inputs near the contract's edges (nulls, missing and extra keys,
 * bounds, bad formats):
 * - whatever the fast path accepts, the zod schema accepts, with the same output (defaults, nulls
 *   absent, keys left with undefined) — it may be stricter, never looser;
 * - the workflow's check gives exactly the zod schema's verdict, output and issues (paths and
 *   messages);
 * - what the client sends (the schema's own output) always takes the fast path, so a valid
 *   booking never loads zod in the workflow.
 * Runs per property: FUZZ_RUNS (default 300).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import { DEFAULT_POLLING } from '../../src/config/defaults';
import {
  ApprovePriceChangeSchema,
  BookRoomInputSchema,
  CancelBookingInputSchema,
  CancelRequestSchema,
  PollingSchema,
  ResolveReconciliationSchema,
  toFieldIssues,
} from '../../src/shared/booking-contract';
import {
  GuardInputSchema,
  GuardCancelRequestSchema,
  GuardPolicySchema,
  KeepRequestSchema,
} from '../../src/shared/guard-contract';
import { DATE_RE, INSTANT_RE } from '../../src/shared/dates';
import {
  EMAIL_RE,
  defaultGuardPolicy,
  fastApprovePriceChange,
  fastBookRoomInput,
  fastCancelBookingInput,
  fastCancelRequest,
  fastGuardInput,
  fastGuardCancelRequest,
  fastResolveReconciliation,
  vouchedShapes,
} from '../../src/shared/input-fast-path';
import {
  checkApprovePriceChange,
  checkBookRoomInput,
  checkCancelBookingInput,
  checkCancelRequest,
  checkGuardInput,
  checkGuardCancelRequest,
  checkKeepRequest,
  checkResolveReconciliation,
  type Checked,
} from '../../src/workflows/input-checks';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** A key left out of the generated object. */
const MISSING = Symbol('missing');
type Field = fc.Arbitrary<unknown>;

/** Mostly `good`, now and then `bad`: most inputs valid, each edge reached. */
function mix(good: Field, bad: Field): Field {
  return fc.oneof({ weight: 30, arbitrary: good }, { weight: 1, arbitrary: bad });
}

/** An optional field: mostly `good`, or null, undefined, missing, or `bad`. */
function field(good: Field, bad: Field = fc.constant(7)): Field {
  return fc.oneof(
    { weight: 20, arbitrary: good },
    { weight: 3, arbitrary: fc.constantFrom(null, undefined, MISSING) },
    { weight: 1, arbitrary: bad },
  );
}

/** An object of `fields`, missing keys left out, now and then an unknown key or a non-object. */
function object(fields: Record<string, Field>): Field {
  const obj = fc
    .tuple(
      fc.record(fields),
      fc.oneof(
        { weight: 40, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('extra', '__proto__') },
      ),
    )
    .map(([o, extra]) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(o)) if (v !== MISSING) out[k] = v;
      if (extra === '__proto__') return JSON.parse('{"__proto__": 1}') as unknown;
      if (extra) out[extra] = 1;
      return out;
    });
  return mix(obj, fc.constantFrom('x', 1, [], null));
}

/** A string field: mostly from `good`, else `bad`, random strings or a number. */
const str = (good: string[], bad: unknown[] = []) =>
  mix(
    fc.constantFrom(...good),
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer(),
      ...(bad.length ? [fc.constantFrom(...bad)] : []),
    ),
  );
const duration = () =>
  mix(
    fc.constantFrom('5s', '15m', '48h', '1.5h', '500ms', 1000),
    fc.constantFrom(0, -5, '0s', ' 2h', '10 m', 'abc', NaN, Infinity, true),
  );
const date = () => str(['2027-03-10', '2028-02-29'], ['2027-02-29', '2027-13-01', '2027-3-10']);
const instant = () =>
  str(
    ['2027-03-10T14:00:00Z', '2027-03-10T14:00:00+02:00', '2027-03-10T14:00:00.123Z'],
    ['2027-03-10T14:00:00', '2027-03-10 14:00:00Z'],
  );
const name = () =>
  mix(
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.constantFrom(' Ada ', 'x'.repeat(100), ` ${'x'.repeat(100)} `),
    ),
    fc.constantFrom('', '   ', 'x'.repeat(101), 7),
  );
const polling = () =>
  object({
    initialInterval: field(duration()),
    maximumInterval: field(duration()),
    backoffCoefficient: field(fc.constantFrom(1, 1.5, 10), fc.constantFrom(0.5, 11, '2')),
  });
const guardPolicy = () =>
  object({
    enabled: field(fc.boolean(), fc.constant('yes')),
    freeCancellationUntil: field(instant()),
    checkInAt: field(instant()),
    checkOutAt: field(instant()),
    reconfirmBefore: field(
      fc.array(duration(), { maxLength: 6 }),
      fc.oneof(fc.array(duration(), { minLength: 7, maxLength: 8 }), fc.constant('72h')),
    ),
    autoCancelBeforePenalty: field(fc.boolean()),
    autoCancelMargin: field(duration()),
  });

export const bookRoomInputArb = object({
  orderId: str(['o-1', 'A.b_c-9', 'x'.repeat(64)], ['x'.repeat(65), 'bad id', '']),
  optionId: name(),
  rooms: mix(
    fc.array(
      object({
        firstName: name(),
        lastName: name(),
        notes: field(str(['n', 'late arrival']), fc.constant('x'.repeat(1001))),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    fc.constantFrom('room', []),
  ),
  contact: object({
    phonePrefix: str(['+39', '39', '+1234'], ['+12345', '++3']),
    phone: str(['3331234567', '12-34', '(123) 456'], ['abc1234', '1 2 3', '1'.repeat(21)]),
    email: field(
      fc.oneof(fc.emailAddress(), fc.constantFrom('ada@example.com', 'ada.l+x@ex.co.uk')),
      fc.constantFrom('a@b', '.a@ex.com', `${'x'.repeat(250)}@ex.com`, 'a@ex.c'),
    ),
  }),
  customFields: field(
    fc.dictionary(
      fc.constantFrom('custom_field_1', 'custom_field_10', 'custom_field_9'),
      fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null)),
      { maxKeys: 3, noNullPrototype: true },
    ),
    fc.oneof(
      fc.constant(['custom_field_1']),
      fc.dictionary(
        fc.constantFrom('custom_field_11', 'custom_field_0', 'foo', 'custom_field_1'),
        fc.constantFrom('x'.repeat(256), 3, 'ok'),
        { minKeys: 1, maxKeys: 2, noNullPrototype: true },
      ),
    ),
  ),
  expectedPrice: field(
    object({
      net: str(['120.50', '-3', '7'], ['1.', '1e3']),
      currency: str(['EUR'], ['eur', 'EURO']),
    }),
  ),
  priceChangePolicy: field(
    object({
      maxIncreasePercent: field(fc.constantFrom(0, 15, 100), fc.constantFrom(101, -1, NaN, '5')),
      acceptPolicyChange: field(fc.boolean(), fc.constant(0)),
      approvalTimeout: field(duration()),
    }),
  ),
  confirmationDeadline: field(duration()),
  cancelOnConfirmationTimeout: field(fc.boolean(), fc.constant('true')),
  cancellationDeadline: field(duration()),
  checkIn: field(date()),
  polling: field(polling()),
  orderIdField: field(str(['custom_field_3', 'custom_field_10'], ['custom_field_11'])),
  guard: field(guardPolicy()),
});

const positiveId = () =>
  mix(fc.constantFrom(1, 42, 2 ** 53 - 1), fc.constantFrom(0, -3, 1.5, 2 ** 53, '7', NaN));
const reason = () => field(str(['changed plans', '']), fc.constant('x'.repeat(501)));

const cancelBookingInput = object({
  bookingId: positiveId(),
  orderId: field(str(['o-1'], ['bad id'])),
  reason: reason(),
  deadline: field(duration()),
  polling: field(polling()),
});

const guardBookingInput = object({
  orderId: str(['o-1'], ['bad id']),
  bookingId: positiveId(),
  checkIn: field(date()),
  guard: field(guardPolicy()),
  cancellationDeadline: field(duration()),
  polling: field(polling()),
  cancellationPending: field(fc.boolean()),
  price: field(
    fc
      .record({
        net: mix(str(['120.50']), fc.constant(MISSING)),
        currency: field(str(['EUR'])),
        taxes: field(str(['1.00'])),
      })
      .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== MISSING))),
  ),
  carried: fc.oneof(
    { weight: 10, arbitrary: fc.constant(MISSING) },
    { weight: 1, arbitrary: fc.constant({ phase: 'CONFIRMED' }) },
  ),
});

const resolution = fc.oneof(
  object({ bookingId: field(positiveId()), noBooking: field(fc.constantFrom(true, false)) }),
  object({ bookingId: field(positiveId()) }),
  object({ noBooking: field(fc.constantFrom(true, false)) }),
);

interface Case {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly fast: (v: unknown) => unknown;
  readonly check: (v: unknown) => Checked<unknown>;
  readonly input: Field;
}

const CASES: Case[] = [
  {
    name: 'bookRoom input',
    schema: BookRoomInputSchema,
    fast: fastBookRoomInput,
    check: checkBookRoomInput,
    input: bookRoomInputArb,
  },
  {
    name: 'cancelBooking input',
    schema: CancelBookingInputSchema,
    fast: fastCancelBookingInput,
    check: checkCancelBookingInput,
    input: cancelBookingInput,
  },
  {
    name: 'guardBooking input',
    schema: GuardInputSchema,
    fast: fastGuardInput,
    check: checkGuardInput,
    input: guardBookingInput,
  },
  {
    name: 'approvePriceChange',
    schema: ApprovePriceChangeSchema,
    fast: fastApprovePriceChange,
    check: checkApprovePriceChange,
    input: object({ approve: field(fc.boolean(), fc.constant(1)) }),
  },
  {
    name: 'cancel',
    schema: CancelRequestSchema,
    fast: fastCancelRequest,
    check: checkCancelRequest,
    input: object({ reason: reason() }),
  },
  {
    name: 'keep',
    schema: KeepRequestSchema,
    fast: fastCancelRequest,
    check: checkKeepRequest,
    input: object({ reason: reason() }),
  },
  {
    name: 'guard cancel',
    schema: GuardCancelRequestSchema,
    fast: fastGuardCancelRequest,
    check: checkGuardCancelRequest,
    input: object({ reason: reason(), acceptPenalty: field(fc.boolean(), fc.constant('yes')) }),
  },
  {
    name: 'resolveReconciliation',
    schema: ResolveReconciliationSchema,
    fast: fastResolveReconciliation,
    check: checkResolveReconciliation,
    input: resolution,
  },
];

const keysOf = (keys: Iterable<string>) => [...keys].sort().join(',');

/** The key sets of every strict object (zod's strictObject) in `schema`, into `into`. */
function strictObjectsOf(schema: unknown, into: Set<string>): void {
  const def = (schema as { _zod: { def: Record<string, unknown> } })._zod.def;
  const inner = (k: string) => strictObjectsOf(def[k], into);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const catchall = (def.catchall as { _zod: { def: { type: string } } } | undefined)?._zod.def;
      if (catchall?.type === 'never') into.add(keysOf(Object.keys(shape)));
      for (const field of Object.values(shape)) strictObjectsOf(field, into);
      return;
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return inner('innerType');
    case 'pipe':
      return (inner('in'), inner('out'));
    case 'array':
      return inner('element');
    case 'union':
      for (const option of def.options as unknown[]) strictObjectsOf(option, into);
      return;
    default:
      return;
  }
}

describe('workflow input checks without zod', () => {
  for (const c of CASES) {
    it(`${c.name}: the fast path accepts only what the schema accepts, with the same output`, () => {
      let vouched = 0;
      fc.assert(
        fc.property(c.input, (input) => {
          const fast = c.fast(input);
          if (fast === undefined) return;
          vouched += 1;
          const parsed = c.schema.safeParse(input);
          assert.ok(
            parsed.success,
            `fast path accepted what zod refuses: ${JSON.stringify(input)}`,
          );
          assert.deepStrictEqual(fast, parsed.data);
        }),
        { numRuns: RUNS },
      );
      assert.ok(vouched > RUNS / 20, `the fast path vouched for ${vouched} of ${RUNS} inputs`);
    });

    it(`${c.name}: the workflow's check gives the schema's verdict, output and issues`, () => {
      fc.assert(
        fc.property(c.input, (input) => {
          const checked = c.check(input);
          const parsed = c.schema.safeParse(input);
          assert.equal(checked.success, parsed.success);
          if (checked.success && parsed.success) assert.deepStrictEqual(checked.data, parsed.data);
          if (!checked.success && !parsed.success)
            assert.deepStrictEqual(checked.issues, toFieldIssues(parsed.error));
        }),
        { numRuns: RUNS },
      );
    });

    it(`${c.name}: what the schema outputs (what the client sends) takes the fast path`, () => {
      fc.assert(
        fc.property(c.input, (input) => {
          const parsed = c.schema.safeParse(input);
          if (!parsed.success) return;
          // `carried` (continueAsNew) is the one field left to zod.
          if ((parsed.data as { carried?: unknown }).carried !== undefined) return;
          const wire = JSON.parse(JSON.stringify(parsed.data)) as unknown;
          assert.notEqual(c.fast(wire), undefined, JSON.stringify(wire));
          assert.deepStrictEqual(c.fast(wire), c.schema.parse(wire));
        }),
        { numRuns: RUNS },
      );
    });
  }

  it("knows every object of every message by zod's own keys: a field added to one is missing from neither", () => {
    const known = new Set(vouchedShapes().map(keysOf));
    const wanted = new Set<string>();
    for (const c of CASES) strictObjectsOf(c.schema, wanted);
    // The guard's carried state and loose price are zod's alone (a record, a loose object).
    assert.deepStrictEqual([...known].sort(), [...wanted].sort());
  });

  it("uses zod's own patterns and defaults", () => {
    assert.equal(EMAIL_RE.source, z.regexes.email.source);
    assert.equal(DATE_RE.source, `^${z.regexes.date.source.slice(1, -1)}$`);
    const instant = z.iso.datetime({ offset: true }) as unknown as {
      _zod: { def: { pattern: RegExp } };
    };
    assert.equal(INSTANT_RE.source, instant._zod.def.pattern.source);
    assert.deepStrictEqual(DEFAULT_POLLING, PollingSchema.parse({}));
    assert.deepStrictEqual(defaultGuardPolicy(), GuardPolicySchema.parse({}));
  });

  it('takes the bench and test bookings, and a direct start with JSON nulls, on the fast path', () => {
    const direct = {
      orderId: 'o-1',
      optionId: 'opt',
      rooms: [{ firstName: 'Ada', lastName: 'Lovelace', notes: null }],
      contact: { phonePrefix: '+39', phone: '3331234567', email: null },
      customFields: { custom_field_1: 'VIP', custom_field_2: null },
      priceChangePolicy: {
        maxIncreasePercent: null,
        acceptPolicyChange: null,
        approvalTimeout: null,
      },
      polling: { initialInterval: '1s', maximumInterval: '2s', backoffCoefficient: null },
      guard: { enabled: null, reconfirmBefore: null, checkInAt: null },
    };
    assert.deepStrictEqual(fastBookRoomInput(direct), BookRoomInputSchema.parse(direct));
  });
});
