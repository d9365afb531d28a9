/**
 * Bookings across the simulator's scenarios for long runs: each one ends on its own (no approval
 * needed), and each says which final outcome it should reach and whether its booking call is
 * ambiguous by design (so NEEDS_RECONCILIATION is expected).
 */
import type { BookRoomInput, BookingOutcome } from '../../src/shared/booking-contract';
import { scenarioOptionId, type ScenarioName } from '../simulator';

export interface MixEntry {
  readonly scenario: ScenarioName;
  readonly param?: number;
  /** Relative frequency. */
  readonly weight: number;
  /** The outcome when nothing goes wrong; `'NEEDS_RECONCILIATION'` for ambiguous-by-design. */
  readonly expect: BookingOutcome | 'NEEDS_RECONCILIATION';
  readonly input?: Partial<BookRoomInput>;
}

/**
 * Scenarios that end without a person (policy changes accepted by policy), weighted so that most
 * bookings are ordinary and a few are ambiguous by design.
 */
export const SCENARIO_MIX: readonly MixEntry[] = [
  { scenario: 'instant', weight: 6, expect: 'CONFIRMED' },
  { scenario: 'confirm-after-polls', param: 3, weight: 3, expect: 'CONFIRMED' },
  { scenario: 'pending-long', param: 4, weight: 1, expect: 'CONFIRMED' },
  { scenario: 'not-confirmed', param: 2, weight: 1, expect: 'NOT_CONFIRMED' },
  {
    scenario: 'policy-change',
    weight: 1,
    expect: 'CONFIRMED',
    input: { priceChangePolicy: { acceptPolicyChange: true } },
  },
  { scenario: 'not-available', weight: 1, expect: 'NOT_AVAILABLE' },
  { scenario: 'sold-out', weight: 1, expect: 'NOT_AVAILABLE' },
  { scenario: 'price-check-5xx', param: 2, weight: 1, expect: 'CONFIRMED' },
  // The 201 arrives late: the booking call is in flight for long, where kills land.
  { scenario: 'booking-slow', param: 2_000, weight: 4, expect: 'CONFIRMED' },
  { scenario: 'supplier-cancels', param: 2, weight: 1, expect: 'CONFIRMED' },
  { scenario: 'booking-5xx', weight: 1, expect: 'NEEDS_RECONCILIATION' },
  { scenario: 'booking-lost', weight: 1, expect: 'NEEDS_RECONCILIATION' },
];

/** Scenarios that confirm with no fault of their own (for fault and load runs). */
export const PLAIN_MIX: readonly MixEntry[] = [
  { scenario: 'instant', weight: 3, expect: 'CONFIRMED' },
  { scenario: 'confirm-after-polls', param: 3, weight: 2, expect: 'CONFIRMED' },
];

/** A deterministic PRNG (mulberry32), so a run's choices can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks an entry by weight. */
export function pick(mix: readonly MixEntry[], random: () => number): MixEntry {
  const total = mix.reduce((s, e) => s + e.weight, 0);
  let r = random() * total;
  for (const e of mix) {
    r -= e.weight;
    if (r < 0) return e;
  }
  return mix[mix.length - 1]!;
}

/** Guest data for a booking (sentinels in personal-data runs). */
export interface Guest {
  readonly firstName: string;
  readonly lastName: string;
  readonly email: string;
  readonly phonePrefix: string;
  readonly phone: string;
  readonly notes?: string;
}

export const ORDINARY_GUEST: Guest = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  phonePrefix: '+39',
  phone: '3331234567',
};

/** Polling fast enough for tests and drills, slow enough not to flood a loaded dev server. */
export const DRILL_POLLING = {
  initialInterval: '100ms',
  maximumInterval: '500ms',
  backoffCoefficient: 1.5,
} as const;

/** The `bookRoom` input for an entry. */
export function mixInput(
  entry: MixEntry,
  orderId: string,
  guest: Guest = ORDINARY_GUEST,
): BookRoomInput {
  return {
    orderId,
    optionId: scenarioOptionId(
      entry.scenario,
      entry.param !== undefined ? { param: entry.param } : {},
    ),
    rooms: [
      {
        firstName: guest.firstName,
        lastName: guest.lastName,
        ...(guest.notes ? { notes: guest.notes } : {}),
      },
    ],
    contact: { phonePrefix: guest.phonePrefix, phone: guest.phone, email: guest.email },
    polling: DRILL_POLLING,
    ...entry.input,
  };
}

/** A unique order id for a run. */
export function orderIdFor(run: string, i: number): string {
  return `${run}-${i.toString().padStart(5, '0')}`;
}
