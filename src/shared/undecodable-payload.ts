/**
 * A payload the worker could not read: bytes that are not JSON, an encoding no converter knows,
 * ciphertext under a key this worker does not hold. The workflow's payload converter
 * (src/codec/payload-converter.ts) hands one to workflow code instead of throwing, which would fail
 * the workflow task and retry it forever; the input checks refuse it, naming why.
 */
export class UndecodablePayload {
  constructor(
    /** Why, in words that quote neither the payload's bytes nor any key. */
    readonly why: string,
  ) {}
}
