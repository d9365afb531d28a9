/** The price decision (rule 2), pure: what a price check's answer means for the booking. */
import type { Price, SupplierPrice } from '../../shared/booking-contract';
import { increasePercent } from './pricing';

/** A price check's answer, as the activity returns it. */
export interface PriceCheckAnswer {
  readonly status: 'AVAILABLE' | 'NOT AVAILABLE' | 'PRICE CHANGE' | 'POLICY CHANGE';
  readonly price: SupplierPrice | null;
  readonly token: string | null;
}

/** What a person approved in earlier rounds of this booking. */
export interface Approved {
  readonly price: SupplierPrice | undefined;
  readonly policy: boolean;
}

export interface PriceContext {
  readonly expected?: Price | undefined;
  /** @default 0 */
  readonly maxIncreasePercent?: number | undefined;
  /** @default false */
  readonly acceptPolicyChange?: boolean | undefined;
  readonly approved?: Approved | undefined;
}

export type PriceVerdict =
  /** Book with this token; `price` is what will be paid as far as we know. */
  | { readonly kind: 'book'; readonly token: string; readonly price: SupplierPrice | undefined }
  /** A person decides (`approvePriceChange`). */
  | {
      readonly kind: 'ask';
      readonly token: string;
      readonly price: SupplierPrice | undefined;
      readonly increasePercent?: number;
    }
  | { readonly kind: 'not-available' }
  /** The answer breaks the contract (no token to book with). */
  | { readonly kind: 'invalid'; readonly message: string };

/**
 * Decides on one price check; a change's reference is what a person approved last, else the
 * expected price. Without a comparable reference a change cannot be judged, so a person decides.
 */
export function decidePrice(answer: PriceCheckAnswer, ctx: PriceContext): PriceVerdict {
  if (answer.status === 'NOT AVAILABLE') return { kind: 'not-available' };
  if (!answer.token) {
    return { kind: 'invalid', message: `price check ${answer.status} without a booking_id` };
  }
  const price = answer.price ?? ctx.approved?.price ?? ctx.expected;
  const token = answer.token;
  if (answer.status === 'AVAILABLE') return { kind: 'book', token, price };
  if (answer.status === 'PRICE CHANGE') {
    const increase = increasePercent(ctx.approved?.price ?? ctx.expected, answer.price);
    if (increase !== undefined && increase <= (ctx.maxIncreasePercent ?? 0)) {
      return { kind: 'book', token, price };
    }
    return {
      kind: 'ask',
      token,
      price,
      ...(increase !== undefined ? { increasePercent: Math.round(increase * 100) / 100 } : {}),
    };
  }
  if (ctx.acceptPolicyChange === true || ctx.approved?.policy === true) {
    return { kind: 'book', token, price };
  }
  return { kind: 'ask', token, price };
}

/** What a person's approval of `answer` adds to what was approved before. */
export function approve(answer: PriceCheckAnswer, before: Approved | undefined): Approved {
  return {
    price: answer.price ?? before?.price,
    policy: before?.policy === true || answer.status === 'POLICY CHANGE',
  };
}
