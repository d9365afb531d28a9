/**
 * The workflow sandbox evaluates the workflow modules once per worker and freezes what they
 * export, shared by every workflow (`preloadModules`, src/workflow-bundle.ts). The contract's zod
 * schemas are not among them: a workflow requires them for a doubtful input only
 * (src/workflows/input-checks.ts), beside the frozen values. Here the modules are loaded and
 * frozen as the sandbox does (every module the workflows' entry loads; each export and everything
 * reachable through own properties), then the schemas are asked about bad values of every field
 * they check against a shared pattern: each gives that field's issue, none a TypeError from a
 * frozen object. And the product's bundle does preload the workflows' entry.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import type * as BookingContract from '../../src/shared/booking-contract';
import type * as WorkflowBundle from '../../src/workflow-bundle';
import type * as GuardContract from '../../src/shared/guard-contract';

const SRC = join(__dirname, '..', '..', 'src');

/** As the sandbox freezes a shared module: objects through their own properties (getters read), functions themselves. */
function freezeDeep(value: unknown, seen = new WeakSet<object>()): void {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return;
  if (seen.has(value)) return;
  seen.add(value);
  if (typeof value === 'object') {
    for (const key of Reflect.ownKeys(value)) {
      try {
        freezeDeep((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        // Some objects cannot be frozen (typed arrays): the sandbox leaves them too.
      }
    }
  }
  Object.freeze(value);
}

const loadedBefore = new Set(Object.keys(require.cache));
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded, then frozen, in order
require('../../src/workflows');
const preloaded = Object.keys(require.cache).filter(
  (p) => p.startsWith(SRC) && !loadedBefore.has(p),
);
const zodPreloaded = Object.keys(require.cache).some((p) =>
  p.includes(join('node_modules', 'zod')),
);
for (const path of preloaded) freezeDeep(require.cache[path]?.exports);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- after the freeze, as in a workflow
const booking = require('../../src/shared/booking-contract') as typeof BookingContract;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- after the freeze, as in a workflow
const guard = require('../../src/shared/guard-contract') as typeof GuardContract;

const validBooking = {
  orderId: 'order-1',
  optionId: 'opt-1',
  rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
  contact: { phonePrefix: '+39', phone: '0612345678', email: 'ada@example.com' },
  expectedPrice: { net: '120.50', currency: 'EUR' },
};

function issueFields(schema: { safeParse(v: unknown): unknown }, input: unknown): string[] {
  const parsed = schema.safeParse(input) as { success: boolean; error?: unknown };
  if (parsed.success) return [];
  return booking
    .toFieldIssues(parsed.error as Parameters<typeof booking.toFieldIssues>[0])
    .map((i) => i.field);
}

describe('the contract beside the frozen, shared workflow modules', () => {
  it('the workflows entry loads the values and not the contract or zod', () => {
    assert.ok(preloaded.some((p) => p.endsWith(join('shared', 'booking-values.ts'))));
    assert.ok(!preloaded.some((p) => p.endsWith(join('shared', 'booking-contract.ts'))));
    assert.equal(zodPreloaded, false);
    assert.ok(Object.isFrozen(require.cache[preloaded[0]!]?.exports));
  });

  it('a valid booking input parses', () => {
    assert.deepEqual(issueFields(booking.BookRoomInputSchema, validBooking), []);
  });

  for (const [field, input] of [
    ['orderId', { ...validBooking, orderId: 'no spaces allowed' }],
    [
      'contact.phonePrefix',
      { ...validBooking, contact: { ...validBooking.contact, phonePrefix: 'x' } },
    ],
    ['expectedPrice.net', { ...validBooking, expectedPrice: { net: '12,50', currency: 'EUR' } }],
    [
      'expectedPrice.currency',
      { ...validBooking, expectedPrice: { net: '12.50', currency: 'eu' } },
    ],
  ] as const) {
    it(`a bad ${field} is that field's issue`, () => {
      assert.deepEqual(issueFields(booking.BookRoomInputSchema, input), [field]);
    });
  }

  it('a bad custom field name is an issue of the custom fields', () => {
    const fields = issueFields(booking.BookRoomInputSchema, {
      ...validBooking,
      customFields: { custom_field_11: 'x' },
    });
    assert.equal(fields.length, 1);
    assert.match(fields[0]!, /^customFields/);
  });

  it("a bad order id in the guard's input is that field's issue", () => {
    const fields = issueFields(guard.GuardInputSchema, { orderId: 'a b', bookingId: 7 });
    assert.ok(fields.includes('orderId'), fields.join(', '));
  });

  it("the product's bundle preloads the workflows' entry, and with it every module it imports", async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- not before the freeze above
    const { bundleWorkflows } = require('../../src/workflow-bundle') as typeof WorkflowBundle;
    const { code } = await bundleWorkflows();
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code);
    assert.ok(preload, 'the bundle has a preloadModules function');
    assert.match(preload[1]!, /__webpack_require__\([^)]*"\.\/src\/workflows\/index\.ts"\)/);
  });
});
