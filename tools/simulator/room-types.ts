/**
 * The room types every property offers. Availability lists the ordinary ones (`std`, `sup`) and,
 * for each scenario, one `x` room whose name carries the scenario; the code travels in the
 * option id, so a price check or booking knows the room without a prior availability call.
 */

export const ROOM_CODES = ['std', 'sup', 'x'] as const;
export type RoomCode = (typeof ROOM_CODES)[number];

export interface RoomType {
  readonly code: RoomCode;
  readonly name: { readonly en: string; readonly it: string };
  readonly bedGroups: readonly { readonly id: string; readonly description: string }[];
  /** Treatment category id (see the reference lists). */
  readonly treatment: string;
  readonly refundable: boolean;
  /** Price multiplier over the property's base night rate. */
  readonly priceFactor: number;
  /** Room amenity ids. */
  readonly amenities: readonly string[];
  readonly maxAdults: number;
}

export const ROOM_TYPES: Readonly<Record<RoomCode, RoomType>> = {
  std: {
    code: 'std',
    name: { en: 'Standard Double Room', it: 'Camera Doppia Standard' },
    bedGroups: [{ id: 'bg-double', description: '1 double bed' }],
    treatment: 'BB',
    refundable: true,
    priceFactor: 1,
    amenities: ['r1', 'r4', 'r5', 'r6', 'r10', 'r15'],
    maxAdults: 3,
  },
  sup: {
    code: 'sup',
    name: { en: 'Superior Double Room', it: 'Camera Doppia Superior' },
    bedGroups: [
      { id: 'bg-double', description: '1 double bed' },
      { id: 'bg-twin', description: '2 twin beds' },
    ],
    treatment: 'RO',
    refundable: false,
    priceFactor: 1.35,
    amenities: ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r9', 'r11', 'r15'],
    maxAdults: 4,
  },
  x: {
    code: 'x',
    name: { en: 'Classic Room', it: 'Camera Classic' },
    bedGroups: [{ id: 'bg-double', description: '1 double bed' }],
    treatment: 'BB',
    refundable: true,
    priceFactor: 1.15,
    amenities: ['r1', 'r4', 'r5', 'r10'],
    maxAdults: 4,
  },
};
