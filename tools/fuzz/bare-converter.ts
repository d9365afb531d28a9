/**
 * The payload converter of a client that sends payloads as they are: a value made with
 * {@link rawPayload} goes out unchanged, anything else as the SDK's default converter writes it.
 * Loaded by path (`payloadConverterPath`), as the SDK loads converters.
 */
import { defaultPayloadConverter, type Payload, type PayloadConverter } from '@temporalio/common';

const RAW = Symbol.for('hotel-booking.fuzz.raw-payload');

/** `payload`, marked to go out unchanged. */
export const rawPayload = (payload: Payload): object => ({ [RAW]: payload });

export const payloadConverter: PayloadConverter = {
  toPayload(value: unknown): Payload {
    const raw =
      typeof value === 'object' && value !== null
        ? (value as Record<symbol, unknown>)[RAW]
        : undefined;
    return (raw as Payload | undefined) ?? defaultPayloadConverter.toPayload(value);
  },
  fromPayload<T>(payload: Payload): T {
    return defaultPayloadConverter.fromPayload<T>(payload);
  },
};
