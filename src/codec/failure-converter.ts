/**
 * The failure converter, loaded by path (`DataConverter.failureConverterPath`) by the worker and
 * the client, and bundled into the workflow sandbox: so it imports nothing but `@temporalio/common`
 * and does nothing at load time but build the converter. Failure messages may quote guest data
 * (docs/hard-rules.md, rule 9): `encodeCommonAttributes` moves them into an encrypted payload.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
