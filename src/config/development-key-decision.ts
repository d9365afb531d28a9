/**
 * When no payload key is configured, may a process fall back to the public development key?
 *
 * The development key exists so that `npm run demo`, `npm start`, `npm run cluster` and the tests
 * run the real codec without setup; anything it encrypts is readable by anyone with this source.
 * So it is used only where Temporal is a development one:
 *
 * - `NODE_ENV=production`: never (the image sets it).
 * - Temporal on this machine (a loopback `TEMPORAL_ADDRESS`) and no API key: yes, silently. Every
 *   local stack of this repository is there. An API key means Temporal Cloud, whatever the
 *   address (a tunnel can make it look local).
 * - `NODE_ENV=development` or `test` (docker compose's default, where Temporal is the `temporal`
 *   service; `npm test` against a `TEMPORAL_ADDRESS` of another machine): yes, with a warning
 *   line, because the environment says it is not production.
 * - Anything else (a Temporal elsewhere, the environment silent): refused, in one line that says
 *   what to set. A tool that quietly used the development key there would write guest data that
 *   anyone can decrypt, and could read none of the workers' payloads.
 *
 * A `kubectl port-forward` also makes a remote Temporal look local: set the keys there too
 * (`hotel-booking doctor namespace` warns about the development key).
 */
import { isLoopbackAddress } from './loopback';
import { withoutPassword } from './errors';

export interface DevelopmentKeyFacts {
  /** `TEMPORAL_ADDRESS`. */
  readonly temporalAddress: string;
  /** `TEMPORAL_API_KEY` or `TEMPORAL_API_KEY_FILE` is set. */
  readonly apiKey: boolean;
  /** `NODE_ENV`. */
  readonly nodeEnv: string | undefined;
  /** The development key's id, for the lines below. */
  readonly keyId: string;
}

/** `NODE_ENV` values that say "not production" (the public key may then meet any Temporal). */
const DECLARED_NOT_PRODUCTION: readonly string[] = ['development', 'test'];

export type DevelopmentKeyDecision =
  | { readonly use: true; readonly warning?: string }
  | { readonly use: false; readonly problem: string };

/** Whether the development key may stand in for unset `PAYLOAD_ENCRYPTION_KEYS`; see above. */
export function developmentKeyDecision(facts: DevelopmentKeyFacts): DevelopmentKeyDecision {
  const devKey = `the public development key "${facts.keyId}"`;
  if (facts.nodeEnv === 'production') {
    return {
      use: false,
      problem: `PAYLOAD_ENCRYPTION_KEYS: required when NODE_ENV=production (or PAYLOAD_ENCRYPTION_KEYS_FILE): set the workers' keys; ${devKey} is refused`,
    };
  }
  if (isLoopbackAddress(facts.temporalAddress) && !facts.apiKey) return { use: true };
  const where = `Temporal at ${withoutPassword(facts.temporalAddress)} ${facts.apiKey ? 'with an API key' : '(not this machine)'}`;
  if (facts.nodeEnv !== undefined && DECLARED_NOT_PRODUCTION.includes(facts.nodeEnv)) {
    return {
      use: true,
      warning: `PAYLOAD_ENCRYPTION_KEYS is unset: payloads to ${where} are encrypted with ${devKey} because NODE_ENV=${facts.nodeEnv}; set the workers' keys before real guests`,
    };
  }
  return {
    use: false,
    problem: `PAYLOAD_ENCRYPTION_KEYS: required for ${where}: set the workers' keys (or PAYLOAD_ENCRYPTION_KEYS_FILE); ${devKey} serves only a local Temporal or NODE_ENV=development`,
  };
}
