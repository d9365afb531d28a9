/**
 * May the tool send a booking something (an update's arguments, encrypted with its first key)?
 * Workers that cannot decrypt it fail the booking's workflow tasks while the update is pending, and
 * the tool only sees no worker answer. So it first reads the booking (which proves it holds the
 * workers' key) and sends only when it encrypts with their key id (docs/payload-encryption.md).
 */

export interface WriteKeyFacts {
  /** The key id this tool encrypts with (the first of `PAYLOAD_ENCRYPTION_KEYS`). */
  readonly encryptsWith: string;
  /** Key ids of the booking's payloads the tool just decrypted (written by its workers). */
  readonly workersWrite: readonly string[];
}

/** The one line that stops the command, or undefined when the workers can read what it sends. */
export function writeKeyProblem(facts: WriteKeyFacts): string | undefined {
  // Nothing decrypted (a payload in clear, or nothing read): no evidence either way.
  if (facts.workersWrite.length === 0 || facts.workersWrite.includes(facts.encryptsWith)) {
    return undefined;
  }
  const theirs = facts.workersWrite.map((id) => `"${id}"`).join(', ');
  return (
    `The workers write with key id ${theirs} but this tool encrypts with "${facts.encryptsWith}" ` +
    `(the first key of PAYLOAD_ENCRYPTION_KEYS), which they may not hold: list the workers' keys in ` +
    `their order, ${theirs} first; nothing was sent (docs/payload-encryption.md).`
  );
}
