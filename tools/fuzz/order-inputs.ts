/**
 * What the `orders` surface sends, as a caller that is not ours would: a booking input with one
 * field made hostile (or the whole input), a payload no converter of ours wrote, an update or a
 * query with a hostile argument, or several racing starts of one order. Seeded by fast-check.
 * Personal fields carry {@link PII} so that a refusal echoing them is found.
 */
import fc from 'fast-check';
import type { Payload } from '@temporalio/common';
import { scenarioOptionId } from '../simulator/scenarios';
import { HOSTILE_TEXT } from './campaign';

/** Marks every personal value the surface sends: none may come back in a refusal or an attribute. */
export const PII = 'Pii7q';

export type OrderInput =
  | { readonly kind: 'start'; readonly input: unknown; readonly mutated: string }
  | { readonly kind: 'raw'; readonly payload: Payload; readonly what: string }
  | { readonly kind: 'update'; readonly name: string; readonly arg: unknown }
  | { readonly kind: 'query'; readonly name: string; readonly arg: unknown }
  | { readonly kind: 'race'; readonly calls: readonly RaceCall[] };

/** One of several calls for one order at once. */
export type RaceCall = 'update-with-start' | 'start' | 'start-terminate' | 'outcome-alone';

/** A valid input for a fresh order at the simulator's instant confirmation. */
export function validInput(orderId: string): Record<string, unknown> {
  return {
    orderId,
    optionId: scenarioOptionId('instant'),
    rooms: [{ firstName: `${PII}Ada`, lastName: `${PII}Lovelace` }],
    contact: { phonePrefix: '+39', phone: '3331234567', email: `${PII}@example.com` },
  };
}

/** Numbers and values at the edges, as JSON can carry them (NaN and Infinity as text). */
const EDGE_VALUES: readonly unknown[] = [
  null,
  -0,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER,
  0.1,
  -1,
  true,
  [],
  {},
  [null],
  { '': null },
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  ...HOSTILE_TEXT.filter((t) => t.length < 1000),
];

/** Personal fields: a hostile value there is marked, so an echo of it is a leak. */
const PERSONAL = new Set([
  'rooms.0.firstName',
  'rooms.0.lastName',
  'contact.email',
  'contact.phone',
]);

const FIELDS = [
  'orderId',
  'optionId',
  'rooms',
  'rooms.0',
  'rooms.0.firstName',
  'rooms.0.lastName',
  'rooms.0.notes',
  'contact',
  'contact.phonePrefix',
  'contact.phone',
  'contact.email',
  'customFields',
  'expectedPrice',
  'priceChangePolicy',
  'confirmationDeadline',
  'cancelOnConfirmationTimeout',
  'cancellationDeadline',
  'checkIn',
  'polling',
  'polling.initialInterval',
  'orderIdField',
  'guard',
  'guard.enabled',
  'extraField',
] as const;

function nested(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_VALUES) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }).map(nested) },
  { weight: 1, arbitrary: fc.constant('x'.repeat(1024 * 1024)) },
);

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at: unknown = target;
  for (const key of keys.slice(0, -1)) {
    const next = (at as Record<string, unknown>)[key];
    if (typeof next !== 'object' || next === null) (at as Record<string, unknown>)[key] = {};
    at = (at as Record<string, unknown>)[key];
  }
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete (at as Record<string, unknown>)[last];
  else (at as Record<string, unknown>)[last] = value;
}

const startInput: fc.Arbitrary<OrderInput> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...FIELDS), fc.oneof(hostileValue, fc.constant(undefined)))
    .map(([field, value]) => {
      const input = validInput('ORDER');
      const marked = PERSONAL.has(field) && typeof value === 'string' ? `${PII}${value}` : value;
      setPath(input, field, marked);
      return { kind: 'start' as const, input, mutated: field };
    }),
  hostileValue.map((input) => ({ kind: 'start' as const, input, mutated: '(the whole input)' })),
);

const text = (encoding: string, data: string | Uint8Array): Payload => ({
  metadata: { encoding: new TextEncoder().encode(encoding) },
  data: typeof data === 'string' ? new TextEncoder().encode(data) : data,
});

/** Payloads no converter of ours wrote: bytes a converter or a codec must refuse, not loop on. */
const RAW: readonly (readonly [string, Payload])[] = [
  ['json/plain, not JSON', text('json/plain', '{"orderId": "ORDER", rooms: [')],
  ['json/plain, empty', text('json/plain', '')],
  ['json/plain, 100,000 deep', text('json/plain', '['.repeat(100_000) + ']'.repeat(100_000))],
  ['json/plain, an integer past 2^53', text('json/plain', '{"orderId": 9007199254740993}')],
  ['json/plain, a lone surrogate escaped', text('json/plain', '{"orderId": "\\ud800"}')],
  ['binary/null', { metadata: { encoding: new TextEncoder().encode('binary/null') } }],
  ['binary/plain', text('binary/plain', new Uint8Array([0, 255, 1, 254]))],
  ['json/protobuf, junk', text('json/protobuf', '{"x":1}')],
  ['an unknown encoding', text('x-hostile/unknown', '{}')],
  ['no encoding', { metadata: {}, data: new TextEncoder().encode('{}') }],
  ['binary/encrypted, junk', text('binary/encrypted', new Uint8Array(40))],
  [
    'binary/encrypted, an unknown key id',
    {
      metadata: {
        encoding: new TextEncoder().encode('binary/encrypted'),
        'encryption-key-id': new TextEncoder().encode('no-such-key'),
      },
      data: new Uint8Array(64),
    },
  ],
];

const rawInput: fc.Arbitrary<OrderInput> = fc
  .constantFrom(...RAW)
  .map(([what, payload]) => ({ kind: 'raw' as const, payload, what }));

const UPDATES = [
  'approvePriceChange',
  'cancel',
  'resolveReconciliation',
  'keep',
  'outcome',
  'noSuchUpdate',
] as const;

const updateInput: fc.Arbitrary<OrderInput> = fc
  .tuple(fc.constantFrom(...UPDATES), hostileValue)
  .map(([name, arg]) => ({ kind: 'update' as const, name, arg }));

const queryInput: fc.Arbitrary<OrderInput> = fc
  .tuple(fc.constantFrom('bookingState', 'noSuchQuery'), hostileValue)
  .map(([name, arg]) => ({ kind: 'query' as const, name, arg }));

const raceInput: fc.Arbitrary<OrderInput> = fc
  .array(
    fc.constantFrom<RaceCall>('update-with-start', 'start', 'start-terminate', 'outcome-alone'),
    { minLength: 2, maxLength: 6 },
  )
  .map((calls) => ({ kind: 'race' as const, calls }));

/** The surface's inputs for `seed`: mostly starts, then updates, queries, raw payloads, races. */
export function orderInputs(seed: number, count: number): OrderInput[] {
  const any = fc.oneof(
    { weight: 10, arbitrary: startInput },
    { weight: 3, arbitrary: updateInput },
    { weight: 2, arbitrary: queryInput },
    { weight: 1, arbitrary: rawInput },
    { weight: 2, arbitrary: raceInput },
  );
  return fc.sample(any, { seed, numRuns: count });
}
