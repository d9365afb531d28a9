/**
 * The workflows' payload converter, compiled into the bundle (`payloadConverterPath`): the SDK's
 * default, except that a payload the worker's codecs marked undecodable (worker-codecs.ts), or JSON
 * that does not parse, becomes an {@link UndecodablePayload}. Anything else it cannot read still
 * throws: a history replayed without the codec fails as it should.
 */
import { defaultPayloadConverter, type Payload, type PayloadConverter } from '@temporalio/common';
import { UndecodablePayload } from '../shared/undecodable-payload';

/** The encoding the worker's codecs give a payload they could not decode; its data says why. */
export const UNDECODABLE_ENCODING = 'binary/undecodable';

export const READABLE_ENCODINGS: ReadonlySet<string> = new Set([
  'binary/null',
  'binary/plain',
  'json/plain',
]);

const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? undefined);

export const payloadConverter: PayloadConverter = {
  toPayload: (value: unknown): Payload => defaultPayloadConverter.toPayload(value),
  fromPayload<T>(payload: Payload): T {
    try {
      return defaultPayloadConverter.fromPayload<T>(payload);
    } catch (err) {
      const encoding = text(payload.metadata?.encoding);
      if (encoding === UNDECODABLE_ENCODING) return new UndecodablePayload(text(payload.data)) as T;
      if (encoding === 'json/plain')
        return new UndecodablePayload('a json/plain payload that is not JSON') as T;
      throw err;
    }
  },
};
