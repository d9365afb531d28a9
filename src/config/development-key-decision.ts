/**
 * When no payload key is configured, may a process fall back to the public development key
 * (anything it encrypts is readable by anyone with this source)? Only where Temporal is a
 * development one:
 * - `NODE_ENV=production`: never (the image sets it).
 * - A loopback `TEMPORAL_ADDRESS` and no API key: yes, silently (an API key means Temporal Cloud,
 *   whatever the address: a tunnel can make it look local).
 * - `NODE_ENV=development` or `test` (docker compose's default): yes, with a warning line.
 * - Anything else: refused, in one line that says what to set; a tool quietly using the key there
 *   would write guest data anyone can decrypt, and read none of the workers' payloads.
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
