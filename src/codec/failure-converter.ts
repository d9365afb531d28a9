/**
 * The failure converter, loaded by path (`DataConverter.failureConverterPath`): by the worker and
 * the client with `require`, and by `bundleWorkflowCode` into the workflow bundle, where it
 * replaces the default converter inside the sandbox. That is why this module imports nothing but
 * `@temporalio/common` and does nothing at load time but build the converter.
 *
 * `encodeCommonAttributes` moves every failure's message and stack trace out of the clear-text
 * `Failure` fields into an `encodedAttributes` payload, which the payload codec then encrypts:
 * failure messages may quote guest data (docs/hard-rules.md, rule 9). The clear-text message becomes
 * `Encoded failure`.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
