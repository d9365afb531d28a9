/**
 * The one `DataConverter` of the project: the encryption codec plus encoded failure messages. The
 * same converter must be given to every party that reads or writes payloads, or one of them sees
 * ciphertext (or, worse, writes clear text): `Worker.create`, `new Client`,
 * `Worker.runReplayHistory` / `runReplayHistories` (`{ dataConverter }`), and
 * `bundleWorkflowCode({ workflowsPath, ...workflowBundleConverterOptions })`.
 *
 * The bundle is not optional: inside the sandbox (the failure a workflow fails with, failed
 * updates, workflow task failures) the converters compiled into the bundle are used, and a
 * prebuilt `workflowBundle` (ours) keeps whatever it was built with: `Worker.create` hands
 * `failureConverterPath` to the bundler only when it bundles itself. Checked on a real server: a
 * bundle built without ours stored a sandbox failure's message in clear. The codecs run outside
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

/**
 * What `bundleWorkflowCode` must be given so that the sandbox reads payloads and encodes failures
 * as the worker means it to (typed without the worker package, which a client does not install).
 * Outside the sandbox (clients, activities) the SDK's default payload converter is used.
 */
export const workflowBundleConverterOptions: {
  readonly payloadConverterPath: string;
  readonly failureConverterPath: string;
} = {
  payloadConverterPath: require.resolve('./payload-converter'),
  failureConverterPath: FAILURE_CONVERTER_PATH,
};

/**
 * The data converter for worker, client and replay: payloads encrypted with the first key in
 * `config.keys` and decrypted with any, failure messages and stack traces encoded (so encrypted).
 */
export function createDataConverter(
  config: Pick<EncryptionConfig, 'keys'>,
  /** The codec over those keys, when the caller keeps a hold of it. @default a new one */
  codec: EncryptionCodec = new EncryptionCodec(config),
): DataConverter {
  return { payloadCodecs: [codec], failureConverterPath: FAILURE_CONVERTER_PATH };
}
