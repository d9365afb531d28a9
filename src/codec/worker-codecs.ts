/**
 * The worker's side of the payload codecs. A payload they cannot decode (ciphertext under a key id
 * this worker does not hold, bytes that are not ciphertext) or whose encoding no converter reads
 * would fail the workflow task at every retry, forever, leaving the order open and silent: here it
 * goes on marked undecodable with the reason (a key id or an encoding, never key material or the
 * payload's bytes), for the workflow to refuse by name. Clients, replay and the codec server keep
 * the codec's own errors.
 */
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { READABLE_ENCODINGS, UNDECODABLE_ENCODING } from './payload-converter';
import { PayloadCodecError } from './encryption-codec';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const undecodable = (why: string): Payload => ({
  metadata: { encoding: encoder.encode(UNDECODABLE_ENCODING) },
  data: encoder.encode(why),
});

function couldNotDecrypt(err: unknown): Payload {
  const why = err instanceof PayloadCodecError ? err.message : 'the codec could not decode it';
  return undecodable(`a payload the worker could not decrypt: ${why}`);
}

function readable(payload: Payload): Payload {
  const encoding = decoder.decode(payload.metadata?.encoding ?? undefined);
  if (READABLE_ENCODINGS.has(encoding) || encoding === UNDECODABLE_ENCODING) return payload;
  if (encoding === '') return undecodable('a payload with no encoding');
  const named = JSON.stringify(encoding.slice(0, 40));
  return undecodable(`a payload of encoding ${named}, which no converter reads`);
}

function tolerant(codec: PayloadCodec): PayloadCodec {
  return {
    encode: (payloads) => codec.encode(payloads),
    async decode(payloads) {
      const decoded = await codec.decode(payloads).catch(() =>
        // One by one, so that every payload the codec can read is read.
        Promise.all(payloads.map((p) => codec.decode([p]).then(([d]) => d!, couldNotDecrypt))),
      );
      return decoded.map(readable);
    },
  };
}

/** `dataConverter` for a worker: what its codecs cannot make readable goes on, marked. */
export function workerDataConverter(dataConverter: DataConverter): DataConverter {
  return { ...dataConverter, payloadCodecs: dataConverter.payloadCodecs?.map(tolerant) };
}
