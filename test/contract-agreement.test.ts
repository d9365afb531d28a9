/**
 * The published JSON Schemas (contract/) and the product decide alike: generated inputs — valid
 * ones, and ones changed in one rule at a time (the phone, durations, blank and long text, the
 * reserved order-id field, maxIncreasePercent without expectedPrice, bounds, unknown fields, line
 * breaks and other scripts' digits) — are validated by Python's `jsonschema`, as an order system
 * in Python validates them, and by the product: the workflow's verdict
 * (src/workflows/input-verdicts.ts: the zod-free fast path, else zod, then the rules across fields),
 * zod's alone, and the fast path's (which may refuse more, never accept more). Each must be
 * accepted by the schema exactly when the product accepts it, with or without format checks.
 *
 * Runs per property: CONTRACT_FUZZ_RUNS (default 300); seed: CONTRACT_FUZZ_SEED (default: a new
 * one, printed with a failure). CONTRACT_SCHEMA_DIR validates against another copy of the schemas
 * (e.g. an earlier version's, to see what it let through).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_ORDER_ID_FIELD } from '../src/config/defaults';
import {
  ApprovePriceChangeSchema,
  BookRoomInputSchema,
  CancelBookingInputSchema,
  CancelRequestSchema,
  ResolveReconciliationSchema,
  bookRoomInputRuleIssues,
} from '../src/shared/booking-contract';
import { durationPattern, WHITE_SPACE } from '../src/shared/contract-patterns';
import { durationToMs, UNIT_MS } from '../src/shared/duration';
import { KeepRequestSchema } from '../src/shared/guard-contract';
import {
  fastApprovePriceChange,
  fastBookRoomInput,
  fastCancelBookingInput,
  fastCancelRequest,
  fastResolveReconciliation,
} from '../src/shared/input-fast-path';
import {
  checkApprovePriceChange,
  checkCancelBookingInput,
  checkCancelRequest,
  checkKeepRequest,
  checkResolveReconciliation,
} from '../src/workflows/input-checks';
import { bookRoomInputVerdict } from '../src/workflows/input-verdicts';
import {
  jsonSchemaPython,
  startPythonSchemaValidator,
  type PythonSchemaValidator,
} from './helpers/json-schema';

const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 300);
const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? Date.now() % 2 ** 31);
const env = jsonSchemaPython();

type Json = Record<string, unknown>;
type Arb<T = unknown> = fc.Arbitrary<T>;

// --- text --------------------------------------------------------------------------------------

/** JavaScript's white space (what trim removes and `\s` matches), one character each. */
const SPACE_RE = new RegExp(`^[${WHITE_SPACE}]$`);
const SPACES = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).filter((c) =>
  SPACE_RE.test(c),
);
const space: Arb<string> = fc.string({ unit: fc.constantFrom(...SPACES), maxLength: 3 });
/** Any characters: ASCII, letters of other scripts, emoji (two UTF-16 units), lone surrogates. */
const anyText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('a', 'Z', '7', ' ', '\n'),
      fc.constantFrom(...'éßж字٣😀𠮷'),
      fc.constantFrom(...SPACES),
    ),
    maxLength,
  });
/** A text of about `n` characters (code points), of several kinds of character. */
const textOfLength = (n: number) =>
  fc.constantFrom('x', 'é', '😀', '𠮷').map((c) => c.repeat(Math.max(0, n)));

/** Not blank, at most `max` characters once trimmed: and around that edge. */
const nonBlank = (max: number): Arb =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(space, fc.constantFrom('Ada', 'Lovelace', 'Zoë', '李', "O'Neil"), space)
        .map((p) => p.join('')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(space, fc.integer({ min: max - 2, max }).chain(textOfLength), space)
        .map((p) => p.join('')),
    },
  );
const blankOrLong = (max: number): Arb =>
  fc.oneof(
    fc.constantFrom('', ' ', '   ', '\t\n', '\u00a0', '\u3000\ufeff'),
    space,
    fc.integer({ min: max - 1, max: max + 2 }).chain(textOfLength),
    fc.tuple(space, textOfLength(max), space).map((p) => p.join('')),
    anyText(8),
    fc.constantFrom(7, null, ['Ada']),
  );

// --- durations ---------------------------------------------------------------------------------

const UNITS = ['ms', 's', 'm', 'h', 'd'] as const;
/**
 * A decimal of at most 12 significant digits: the product converts in double precision, which
 * decides like exact arithmetic unless a string has 16 or more (the schema's description says so).
 */
const smallDecimal: Arb<string> = fc
  .tuple(fc.nat({ max: 12 }), fc.integer({ min: 1, max: 999_999_999_999 }))
  .map(([zeros, digits]) => `0.${'0'.repeat(zeros)}${digits}`);
const durationString: Arb<string> = fc
  .tuple(
    space,
    fc.oneof(
      fc.nat({ max: 10_000 }).map(String),
      fc.tuple(fc.nat({ max: 99 }), fc.nat({ max: 999 })).map(([a, b]) => `${a}.${b}`),
      smallDecimal,
      fc.constantFrom(
        '0.5',
        '0.4999',
        '0.0005',
        '0.00049',
        '00.5',
        '0.000008333334',
        '0.0000083333',
      ),
    ),
    space,
    fc.constantFrom(...UNITS),
    space,
  )
  .map((p) => p.join(''));
const validDuration: Arb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('30s', '15m', '48h', '1.5h', '500ms', '7d', ' 2h', '10 m', 60_000),
  },
  { weight: 1, arbitrary: fc.double({ min: 1e-9, max: 1e12, noNaN: true }) },
);
const oddDuration: Arb = fc.oneof(
  durationString,
  fc.constantFrom(
    'PT48H',
    '1h30m',
    '0.4ms',
    '0ms',
    '0',
    '5',
    '.5s',
    '5 min',
    '5M',
    '-5m',
    '+5m',
    '1e3s',
    '٣m',
    '5m\n',
    '5\nm',
    '5m\nx',
    'Infinity',
    '',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, true, null, ['5m']),
  anyText(6),
);

// --- the bookRoom input ------------------------------------------------------------------------

const CUSTOM = Array.from({ length: 10 }, (_, i) => `custom_field_${i + 1}`);
const phone: Arb = fc.constantFrom(
  '3331234567',
  '12-34',
  '(123) 456',
  '0000',
  '1 2 3 4',
  '12345678901234567890',
);
const date: Arb = fc.constantFrom('2027-03-10', '2028-02-29', '2000-02-29');
const instant: Arb = fc.constantFrom(
  '2027-03-10T14:00:00Z',
  '2027-03-10T14:00:00+02:00',
  '2027-03-10T14:00:00.123Z',
);

/** A valid bookRoom input, with some of its optional fields, null in others. */
const validInput: Arb<Json> = fc
  .record(
    {
      orderId: fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/),
      optionId: nonBlank(512),
      rooms: fc.array(
        fc.record(
          {
            firstName: nonBlank(100),
            lastName: nonBlank(100),
            notes: fc.option(fc.oneof(anyText(20), textOfLength(1000)), { nil: null }),
          },
          { requiredKeys: ['firstName', 'lastName'] },
        ),
        { minLength: 1, maxLength: 2 },
      ),
      contact: fc.record(
        {
          phonePrefix: fc.constantFrom('+39', '39', '+1', '1234'),
          phone,
          email: fc.option(fc.constantFrom('ada@example.com', 'a.b+c@ex.co.uk'), { nil: null }),
        },
        { requiredKeys: ['phonePrefix', 'phone'] },
      ),
      customFields: fc.option(
        fc.dictionary(
          fc.constantFrom(...CUSTOM.slice(0, 9)),
          fc.option(fc.oneof(anyText(10), textOfLength(255)), { nil: null }),
          { maxKeys: 3, noNullPrototype: true },
        ),
        { nil: null },
      ),
      expectedPrice: fc.option(
        fc.record({
          net: fc.constantFrom('120.50', '-3', '7', '0.001'),
          currency: fc.constantFrom('EUR', 'USD'),
        }),
        { nil: null },
      ),
      priceChangePolicy: fc.option(
        fc.record(
          {
            maxIncreasePercent: fc.option(fc.constant(0), { nil: null }),
            acceptPolicyChange: fc.option(fc.boolean(), { nil: null }),
            approvalTimeout: fc.option(validDuration, { nil: null }),
          },
          { requiredKeys: [] },
        ),
        { nil: null },
      ),
      confirmationDeadline: fc.option(validDuration, { nil: null }),
      cancelOnConfirmationTimeout: fc.option(fc.boolean(), { nil: null }),
      cancellationDeadline: fc.option(validDuration, { nil: null }),
      checkIn: fc.option(date, { nil: null }),
      polling: fc.option(
        fc.record(
          {
            initialInterval: validDuration,
            maximumInterval: validDuration,
            backoffCoefficient: fc.double({ min: 1, max: 10, noNaN: true }),
          },
          { requiredKeys: [] },
        ),
        { nil: null },
      ),
      guard: fc.option(
        fc.record(
          {
            enabled: fc.boolean(),
            freeCancellationUntil: instant,
            checkInAt: instant,
            checkOutAt: instant,
            reconfirmBefore: fc.array(validDuration, { maxLength: 6 }),
            autoCancelBeforePenalty: fc.boolean(),
            autoCancelMargin: validDuration,
            autoCancelNotice: validDuration,
          },
          { requiredKeys: [] },
        ),
        { nil: null },
      ),
    },
    { requiredKeys: ['orderId', 'optionId', 'rooms', 'contact'] },
  )
  .map((v) => v as Json);

type Path = readonly (string | number)[];
/** One change to an input: a value set at a path (a missing parent object made), or a key dropped. */
type Edit = { readonly set: Path; readonly to: unknown } | { readonly drop: string };

/** `input` with `edits` made, in order. */
function edited(input: Json, edits: readonly Edit[]): Json {
  const copy = structuredClone(input);
  for (const edit of edits) {
    if ('drop' in edit) {
      delete copy[edit.drop];
      continue;
    }
    let node = copy as Record<string | number, unknown>;
    for (const key of edit.set.slice(0, -1)) {
      if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
      node = node[key] as Record<string | number, unknown>;
    }
    node[edit.set[edit.set.length - 1]!] = edit.to;
  }
  return copy;
}

/** The values of `values`, each set at `path`. */
const setting = (path: Path, values: Arb): Arb<Edit[]> => values.map((to) => [{ set: path, to }]);
/** Each of `values` set at one of `paths`. */
const settingAny = (paths: readonly Path[], values: Arb): Arb<Edit[]> =>
  fc.tuple(fc.constantFrom(...paths), values).map(([set, to]) => [{ set, to }]);

const DURATION_PATHS: readonly Path[] = [
  ['confirmationDeadline'],
  ['cancellationDeadline'],
  ['priceChangePolicy', 'approvalTimeout'],
  ['polling', 'initialInterval'],
  ['polling', 'maximumInterval'],
  ['guard', 'autoCancelMargin'],
  ['guard', 'autoCancelNotice'],
  ['guard', 'reconfirmBefore', 0],
];

/** Each rule's changes to a valid input: the input may end valid or not; both must agree. */
const CHANGES: Record<string, Arb<Edit[]>> = {
  'the phone': setting(
    ['contact', 'phone'],
    fc.oneof(
      phone,
      fc.constantFrom(
        'abc',
        '123',
        '12a4567',
        '١٢٣٤٥',
        '1234\n',
        '+391234567',
        '123456789012345678901',
        '(((()))) 1-2-3',
        '    1234    ',
      ),
      fc.stringMatching(/^[0-9 ()a-]{0,22}$/),
      anyText(8),
    ),
  ),
  'the durations': settingAny(DURATION_PATHS, oddDuration),
  'blank and long text': fc.oneof(
    setting(['optionId'], blankOrLong(512)),
    settingAny(
      [
        ['rooms', 0, 'firstName'],
        ['rooms', 0, 'lastName'],
      ],
      blankOrLong(100),
    ),
  ),
  'the reserved order-id field': fc
    .tuple(
      fc.constantFrom(...CUSTOM),
      fc.constantFrom<unknown>('caller value', '', null),
      fc.option(fc.constantFrom<unknown>(...CUSTOM, null), { nil: undefined }),
    )
    .map(([field, value, orderIdField]): Edit[] => [
      { set: ['customFields', field], to: value },
      ...(orderIdField !== undefined ? [{ set: ['orderIdField'], to: orderIdField }] : []),
    ]),
  'maxIncreasePercent needs expectedPrice': fc
    .tuple(
      fc.constantFrom<unknown>(0, 0.01, 5, 100, null),
      fc.constantFrom<unknown>('as generated', null, 'absent', { net: '1', currency: 'EUR' }),
    )
    .map(([percent, price]): Edit[] => [
      { set: ['priceChangePolicy', 'maxIncreasePercent'], to: percent },
      ...(price === 'absent'
        ? [{ drop: 'expectedPrice' }]
        : price === 'as generated'
          ? []
          : [{ set: ['expectedPrice'], to: price }]),
    ]),
  bounds: fc.oneof(
    setting(
      ['priceChangePolicy', 'maxIncreasePercent'],
      fc.constantFrom(-1, -0.0001, 100, 100.0001, 101, 1e308),
    ),
    setting(['polling', 'backoffCoefficient'], fc.constantFrom(0.5, 1, 10, 10.5)),
    setting(
      ['guard', 'reconfirmBefore'],
      fc.nat({ max: 8 }).map((n) => Array.from({ length: n }, () => '1h')),
    ),
    setting(
      ['orderId'],
      fc.constantFrom(0, 63, 64, 65).map((n) => 'o'.repeat(n)),
    ),
    setting(['rooms', 0, 'notes'], fc.constantFrom(999, 1000, 1001).chain(textOfLength)),
    setting(['customFields', 'custom_field_1'], fc.constantFrom(254, 255, 256).chain(textOfLength)),
    setting(
      ['contact', 'email'],
      fc.constantFrom(253, 254, 255).map((n) => `${'a'.repeat(n - 7)}@ex.com`),
    ),
    setting(['rooms'], fc.constant([])),
    setting(['contact', 'phonePrefix'], fc.constantFrom('+12345', '++3', '', '+٣')),
  ),
  'unknown fields and wrong types': fc.oneof(
    settingAny(
      [
        ['extra'],
        ['contact', 'fax'],
        ['rooms', 0, 'age'],
        ['polling', 'jitter'],
        ['guard', 'other'],
        ['expectedPrice', 'gross'],
        ['priceChangePolicy', 'x'],
      ],
      fc.constant(1),
    ),
    settingAny(
      [
        ['customFields', 'custom_field_11'],
        ['customFields', 'custom_field_0'],
        ['customFields', 'custom_field_01'],
        ['customFields', 'custom_field_1\n'],
        ['customFields', 'notes'],
      ],
      fc.constant('x'),
    ),
    settingAny(
      [
        ['orderId'],
        ['optionId'],
        ['rooms'],
        ['contact'],
        ['customFields'],
        ['expectedPrice'],
        ['checkIn'],
        ['cancelOnConfirmationTimeout'],
        ['guard', 'enabled'],
        ['customFields', 'custom_field_2'],
      ],
      fc.constantFrom<unknown>(1, true, 'x', [], {}),
    ),
    fc.constantFrom('orderId', 'optionId', 'rooms', 'contact').map((drop): Edit[] => [{ drop }]),
  ),
  'line breaks, other digits, dates and instants': fc.oneof(
    setting(['orderId'], fc.constantFrom('o-1\n', 'o-1\r', '\no-1', 'o-١')),
    setting(
      ['expectedPrice'],
      fc.constantFrom('1.5\n', '١٢٠', '12.', '1e3', ' 1').map((net) => ({ net, currency: 'EUR' })),
    ),
    setting(
      ['expectedPrice'],
      fc.constantFrom('EUR\n', 'eur', 'EURO').map((currency) => ({ net: '1', currency })),
    ),
    setting(
      ['checkIn'],
      fc.constantFrom(
        '2027-03-10\n',
        '2027-02-29',
        '2027-13-01',
        '2027-3-10',
        '٢٠٢٧-03-10',
        '2028-02-29',
      ),
    ),
    setting(
      ['guard', 'checkInAt'],
      fc.constantFrom(
        '2027-03-10T14:00:00',
        '2027-03-10T14:00:00Z\n',
        '2027-03-10 14:00:00Z',
        '2027-03-10T24:00:00Z',
        '2027-03-10T14:00Z',
      ),
    ),
    setting(
      ['contact', 'email'],
      fc.constantFrom('ada@example.com\n', 'a@b', 'ada@exämple.com', 'ada@ex.c'),
    ),
    setting(['orderIdField'], fc.constantFrom('custom_field_10\n', 'custom_field_11')),
  ),
};

// --- the verdicts ------------------------------------------------------------------------------

/** What a caller's JSON becomes on the wire (undefined fields gone). */
const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

interface Verdicts {
  readonly workflow: boolean;
  readonly zod: boolean;
  readonly fast: boolean;
}

function bookRoomVerdicts(input: unknown): Verdicts {
  const parsed = BookRoomInputSchema.safeParse(input);
  return {
    workflow: bookRoomInputVerdict(input).now.success,
    zod:
      parsed.success && bookRoomInputRuleIssues(parsed.data, DEFAULT_ORDER_ID_FIELD).length === 0,
    fast: (() => {
      const fast = fastBookRoomInput(input);
      return (
        fast !== undefined && bookRoomInputRuleIssues(fast, DEFAULT_ORDER_ID_FIELD).length === 0
      );
    })(),
  };
}

/** The product's verdicts on a message: the workflow's check, zod's alone, the fast path's. */
function verdictsOf<T>(
  check: (v: unknown) => { success: boolean },
  fast: (v: unknown) => T | undefined,
  zod: { safeParse(v: unknown): { success: boolean } },
) {
  return (v: unknown): Verdicts => ({
    workflow: check(v).success,
    zod: zod.safeParse(v).success,
    fast: fast(v) !== undefined,
  });
}

/** Per schema file, the product's verdicts on that message. */
const MESSAGE_VERDICTS: Record<string, (v: unknown) => Verdicts> = {
  'cancelBooking.input.schema.json': verdictsOf(
    checkCancelBookingInput,
    fastCancelBookingInput,
    CancelBookingInputSchema,
  ),
  'bookRoom.cancel.update-argument.schema.json': verdictsOf(
    checkCancelRequest,
    fastCancelRequest,
    CancelRequestSchema,
  ),
  'bookRoom.keep.update-argument.schema.json': verdictsOf(
    checkKeepRequest,
    fastCancelRequest,
    KeepRequestSchema,
  ),
  'bookRoom.approvePriceChange.update-argument.schema.json': verdictsOf(
    checkApprovePriceChange,
    fastApprovePriceChange,
    ApprovePriceChangeSchema,
  ),
  'bookRoom.resolveReconciliation.update-argument.schema.json': verdictsOf(
    checkResolveReconciliation,
    fastResolveReconciliation,
    ResolveReconciliationSchema,
  ),
};

describe('the patterns of the published JSON Schemas', () => {
  it('draw the smallest duration at half a millisecond exactly, as durationToMs rounds', () => {
    const pattern = new RegExp(durationPattern());
    const decimal = fc
      .tuple(fc.nat({ max: 3 }), fc.nat({ max: 14 }), fc.bigInt({ min: 0n, max: 10n ** 20n }))
      .map(([whole, zeros, digits]) => `${whole}.${'0'.repeat(zeros)}${digits}`);
    /** The first `k` digits of the unit's half millisecond, then nothing, 1 more, or a digit. */
    const nearHalfMs = (unit: string) =>
      fc
        .tuple(fc.integer({ min: 1, max: 25 }), fc.constantFrom('', '+1', '0', '9'))
        .map(([k, tail]) => {
          const expansion = (10n ** 25n / (2n * BigInt(UNIT_MS[unit]!)))
            .toString()
            .padStart(25, '0');
          let digits = expansion.slice(0, k);
          if (tail === '+1') digits = (BigInt(digits) + 1n).toString().padStart(k, '0');
          else digits += tail;
          return `0.${digits}`;
        });
    const units = fc.constantFrom(...Object.keys(UNIT_MS));
    fc.assert(
      fc.property(
        units.chain((unit) => fc.tuple(fc.oneof(decimal, nearHalfMs(unit)), fc.constant(unit))),
        ([n, unit]) => {
          const [whole, fraction] = n.split('.') as [string, string];
          // n × unit ≥ 0.5 ms, in integers: 2 × (whole.fraction × 10^|fraction|) × unit ≥ 10^|fraction|
          const scaled = BigInt(whole + fraction) * 2n * BigInt(UNIT_MS[unit]!);
          const exact = scaled >= 10n ** BigInt(fraction.length);
          assert.equal(pattern.test(`${n}${unit}`), exact, `${n}${unit}`);
          const significant = (whole + fraction).replace(/^0+/, '').length;
          if (significant <= 12)
            assert.equal(durationToMs(`${n}${unit}`)! > 0, exact, `${n}${unit}`);
        },
      ),
      { numRuns: RUNS * 10, seed: SEED },
    );
  });

  it('spell out exactly the white space JavaScript trims and matches with \\s', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      assert.equal(SPACE_RE.test(ch), /^\s$/.test(ch), `U+${c.toString(16)}`);
      assert.equal(SPACE_RE.test(ch), `a${ch}`.trim() === 'a', `U+${c.toString(16)} trimmed`);
    }
  });
});

describe(
  'the published JSON Schemas and the product accept and refuse the same inputs (Python jsonschema)',
  { skip: env.skip, concurrency: false },
  () => {
    let schemas: PythonSchemaValidator;
    before(async () => {
      schemas = await startPythonSchemaValidator(
        'python' in env ? env.python : '',
        process.env.CONTRACT_SCHEMA_DIR,
      );
    });
    after(async () => {
      await schemas?.close();
    });

    /**
     * Asserts that the schema `file` and the product agree on `input`; counts the verdicts, so that
     * a property can show it reached both.
     */
    async function agree(
      file: string,
      raw: unknown,
      product: (v: unknown) => Verdicts,
      seen: Set<boolean>,
    ) {
      const input = wire(raw);
      const schema = await schemas.validate(file, input);
      const p = product(input);
      seen.add(p.workflow);
      const shown = JSON.stringify(input).slice(0, 600);
      assert.equal(
        schema.valid,
        p.workflow,
        `${file}: schema ${schema.valid ? 'accepts' : 'refuses'} what the workflow ${p.workflow ? 'accepts' : 'refuses'}: ${shown} ${schema.errors.join('; ')}`,
      );
      assert.equal(
        schema.validWithFormats,
        schema.valid,
        `${file}: format checks change the verdict: ${shown}`,
      );
      assert.equal(p.zod, p.workflow, `zod alone decides otherwise than the workflow: ${shown}`);
      if (p.fast) assert.ok(p.workflow, `the fast path accepts what the schema refuses: ${shown}`);
    }

    const params = () => ({ numRuns: RUNS, seed: SEED, includeErrorInReport: true });
    const seedNote = `(CONTRACT_FUZZ_SEED=${SEED})`;

    it(`valid bookRoom inputs are accepted by both ${seedNote}`, async () => {
      const seen = new Set<boolean>();
      await fc.assert(
        fc.asyncProperty(validInput, (i) =>
          agree('bookRoom.input.schema.json', i, bookRoomVerdicts, seen),
        ),
        params(),
      );
      assert.deepEqual([...seen], [true], 'every generated valid input is valid');
    });

    for (const [rule, change] of Object.entries(CHANGES)) {
      it(`bookRoom inputs changed in ${rule}: both accept or both refuse ${seedNote}`, async () => {
        const seen = new Set<boolean>();
        await fc.assert(
          fc.asyncProperty(validInput, change, (i, edits) =>
            agree('bookRoom.input.schema.json', edited(i, edits), bookRoomVerdicts, seen),
          ),
          params(),
        );
        assert.ok(
          seen.has(false),
          `no input changed in ${rule} was refused: the generator misses the rule`,
        );
      });
    }

    it(`cancelBooking inputs and the update arguments: both accept or both refuse ${seedNote}`, async () => {
      const seen = new Set<boolean>();
      const reason = fc.option(
        fc.oneof(anyText(10), fc.constantFrom(499, 500, 501).chain(textOfLength), fc.constant(3)),
        { nil: null },
      );
      const extra = fc.option(fc.constantFrom('extra', 'acceptPenalty'), { nil: undefined });
      const withExtra = ([o, key]: [Json, string | undefined]) =>
        key ? { ...o, [key]: key === 'acceptPenalty' ? true : 1 } : o;
      const reasonOnly = fc
        .tuple(fc.record({ reason }, { requiredKeys: [] }), extra)
        .map(withExtra);
      const cases = fc.oneof(
        fc.tuple(
          fc.constant('cancelBooking.input.schema.json'),
          fc.record(
            {
              bookingId: fc.oneof(
                fc.integer({ min: -2, max: 2 ** 31 }),
                fc.constantFrom(1.5, 2 ** 53, '7'),
              ),
              orderId: fc.option(fc.constantFrom('o-1', 'o 1', 'o-1\n'), { nil: null }),
              reason,
              deadline: fc.option(fc.oneof(validDuration, oddDuration), { nil: null }),
            },
            { requiredKeys: [] },
          ),
        ),
        fc.tuple(fc.constant('bookRoom.cancel.update-argument.schema.json'), reasonOnly),
        fc.tuple(fc.constant('bookRoom.keep.update-argument.schema.json'), reasonOnly),
        fc.tuple(
          fc.constant('bookRoom.approvePriceChange.update-argument.schema.json'),
          fc.record(
            { approve: fc.constantFrom<unknown>(true, false, 'yes', null) },
            { requiredKeys: [] },
          ),
        ),
        fc.tuple(
          fc.constant('bookRoom.resolveReconciliation.update-argument.schema.json'),
          fc.record(
            {
              bookingId: fc.constantFrom<unknown>(7, 0, -1, 1.5, null, '7'),
              noBooking: fc.constantFrom<unknown>(true, false, null),
            },
            { requiredKeys: [] },
          ),
        ),
      );
      await fc.assert(
        fc.asyncProperty(cases, ([file, v]) => agree(file, v, MESSAGE_VERDICTS[file]!, seen)),
        params(),
      );
      assert.deepEqual([...seen].sort(), [false, true]);
    });
  },
);
