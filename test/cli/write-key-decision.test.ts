/** The tool sends a booking something only when it encrypts with the key id its workers write. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeKeyProblem } from '../../src/cli/write-key-decision';

describe('the write key decision', () => {
  it('the key id the workers write with: send', () => {
    assert.equal(
      writeKeyProblem({ encryptsWith: 'ops-2027', workersWrite: ['ops-2027'] }),
      undefined,
    );
  });

  it('nothing decrypted is no evidence: send', () => {
    assert.equal(writeKeyProblem({ encryptsWith: 'ops-2027', workersWrite: [] }), undefined);
  });

  it('another key id first (a rotation half done here): one line naming both and the variable', () => {
    const line = writeKeyProblem({ encryptsWith: 'new-2028', workersWrite: ['ops-2027'] }) ?? '';
    assert.match(line, /"ops-2027"/);
    assert.match(line, /"new-2028"/);
    assert.match(line, /PAYLOAD_ENCRYPTION_KEYS/);
    assert.match(line, /nothing was sent/);
    assert.doesNotMatch(line, /\n/);
  });
});
