/**
 * A payload the worker could not read, which the workflow's payload converter hands to workflow
 * code instead of failing the task forever; the input checks refuse it, naming why
 * (src/codec/worker-codecs.ts).
 */
export class UndecodablePayload {
  constructor(
    /** Why, in words that quote neither the payload's bytes nor any key. */
    readonly why: string,
  ) {}
}
