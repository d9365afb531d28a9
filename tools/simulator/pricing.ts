/**
 * Prices and availability rooms, derived from the option spec alone: the same option id always
 * costs the same, so a price check needs no prior availability call and tests can predict it.
 */
import type { PropertyBase } from './catalogue';
import { addDays, nightsBetween } from './dates';
import { ROOM_TYPES } from './room-types';
import type { Occupancy, OptionSpec } from './scenarios';
import { formatOptionId } from './scenarios';
import { TREATMENT_CATEGORIES } from './reference-lists';

/** Prices include a 10% tax; `without_tax + taxes = net`. */
const TAX_RATE = 0.1;
/** Currency of every price the simulator quotes. */
export const CURRENCY = 'EUR';

/** The price object of the API (amounts as strings with two decimals). */
export interface ApiPrice {
  readonly without_tax: string;
  readonly taxes: string;
  readonly sales_taxes: string;
  readonly net: string;
  readonly currency: string;
}

function occupancyFactor(o: Occupancy): number {
  return 1 + 0.3 * (o.adults - 2) + 0.2 * o.children.length;
}

/** Total net price of an option, in cents. */
export function optionNetCents(spec: OptionSpec, property: PropertyBase): number {
  const nights = nightsBetween(spec.checkin, spec.checkout);
  const perNight = property.baseNightCents * ROOM_TYPES[spec.room].priceFactor;
  let total = 0;
  for (const o of spec.occupancy) total += Math.round(perNight * Math.max(0.6, occupancyFactor(o)));
  return total * nights;
}

/** `net` changed by `percent` (positive raises), rounded to the cent. */
export function adjustCents(net: number, percent: number): number {
  return Math.round((net * (100 + percent)) / 100);
}

function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** The API price object for a net amount in cents. */
export function apiPrice(netCents: number): ApiPrice {
  const withoutTax = Math.round(netCents / (1 + TAX_RATE));
  return {
    without_tax: money(withoutTax),
    taxes: money(netCents - withoutTax),
    sales_taxes: '0.00',
    net: money(netCents),
    currency: CURRENCY,
  };
}

/** Formats cents as the API's amount string. */
export const formatAmount = money;

/** The room name availability shows: scenario rooms say which scenario they carry. */
export function roomName(spec: OptionSpec): string {
  const base = ROOM_TYPES[spec.room].name.en;
  return spec.room === 'x' ? `${base} [scenario: ${spec.scenario}]` : base;
}

/** Latest free-cancellation instant of a refundable option: noon UTC two days before check-in. */
export function freeCancellationUntil(spec: OptionSpec): string | null {
  return ROOM_TYPES[spec.room].refundable ? `${addDays(spec.checkin, -2)}T12:00:00Z` : null;
}

/** The treatment of the room, as `{ id, name }` in English. */
export function treatmentOf(spec: OptionSpec): { id: string; name: string } {
  const id = ROOM_TYPES[spec.room].treatment;
  const found = TREATMENT_CATEGORIES.find((t) => t.id === id);
  return { id, name: found?.en ?? id };
}

/** One room of the availability response. */
export function availabilityRoom(
  spec: OptionSpec,
  property: PropertyBase,
): Record<string, unknown> {
  const type = ROOM_TYPES[spec.room];
  const room: Record<string, unknown> = {
    id: formatOptionId(spec),
    number_of_rooms: spec.occupancy.length,
    occupancy_of_rooms: spec.occupancy.map((o) => ({ adults: o.adults, children: o.children })),
    room_name: roomName(spec),
    status: 'AVAILABLE',
    refundable: type.refundable,
    package: false,
    corporate: false,
    bed_groups: type.bedGroups,
    price: apiPrice(optionNetCents(spec, property)),
    treatments: [treatmentOf(spec)],
  };
  // The seed: cancel_penalties is returned only when the room is refundable.
  if (type.refundable) room.cancel_penalties = freeCancellationUntil(spec);
  return room;
}
