/**
 * The one `DataConverter` of the project: the encryption codec plus encoded failure messages. The
 * same converter must be given to every party that reads or writes payloads, or one of them sees
 * ciphertext (or, worse, writes clear text):
 *
 * - worker: `Worker.create({ dataConverter })`
 * - client: `new Client({ dataConverter })`
 * - replay: `Worker.runReplayHistory({ dataConverter, workflowBundle }, history)` /
 *   `runReplayHistories`
 * - bundle: `bundleWorkflowCode({ workflowsPath, ...workflowBundleConverterOptions })`
 *
 * The last one is not optional: the bundle carries the workflows' payload converter
 * (payload-converter.ts: a payload it cannot read reaches the input checks instead of failing the
 * workflow task) and the failure converter. The failure converter runs in two places. The worker's main
 * thread (activity failures, a workflow that cannot be created) loads `failureConverterPath` from
 * the `dataConverter` given to `Worker.create`. Inside the workflow sandbox (the failure a
 * workflow fails with, failed updates, workflow task failures raised by workflow code) the
 * converter compiled into the bundle is used. `Worker.create` hands `failureConverterPath` to the
 * bundler only when it bundles itself (`workflowsPath`); a prebuilt `workflowBundle` (what this
 * project uses) keeps whatever converter it was built with. Checked on a real server: with a
 * bundle built without ours, a workflow task failure raised in the sandbox was stored with its
 * message in clear, while with ours it read `Encoded failure`. (Activity failures that merely pass
 * through a workflow keep the encoding the worker gave them either way.) The codecs run outside
 * the sandbox and are never bundled.
 */
import type { DataConverter } from '@temporalio/common';
import type { EncryptionConfig } from './types';
import { EncryptionCodec } from './encryption-codec';

/**
 * Absolute path of the module exporting `failureConverter`. Resolved without an extension so that
 * it names the `.ts` file under tsx and the `.js` file in a compiled build.
 */
export const FAILURE_CONVERTER_PATH: string = require.resolve('./failure-converter');

/** Absolute path of the module exporting the workflows' `payloadConverter`, resolved likewise. */
export const PAYLOAD_CONVERTER_PATH: string = require.resolve('./payload-converter');

/**
 * What `bundleWorkflowCode` must be given so that the sandbox reads payloads and encodes failures
 * as the worker means it to (its `BundleOptions`' fields of those names; typed here without the
 * worker package, which a client does not install). Outside the sandbox (clients, activities) the
 * SDK's default payload converter is used.
 */
export const workflowBundleConverterOptions: {
  readonly payloadConverterPath: string;
  readonly failureConverterPath: string;
} = {
  payloadConverterPath: PAYLOAD_CONVERTER_PATH,
  failureConverterPath: FAILURE_CONVERTER_PATH,
};

/**
 * The data converter for worker, client and replay: payloads encrypted with the first key in
 * `config.keys` and decrypted with any, failure messages and stack traces encoded (and so
 * encrypted). Cheap to create; every call builds its own codec over the same keys.
 */
export function createDataConverter(
  config: Pick<EncryptionConfig, 'keys'>,
  /** The codec over those keys, when the caller keeps a hold of it. @default a new one */
  codec: EncryptionCodec = new EncryptionCodec(config),
): DataConverter {
  return {
    payloadCodecs: [codec],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}
