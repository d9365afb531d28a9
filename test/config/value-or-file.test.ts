/** A variable or its `_FILE`, read one way for every secret: never both, the file trimmed. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { problemsOf as configProblems } from '../helpers/config-problems';
import { loadConfig } from '../../src/config';

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadConfig, env);

describe('a variable or its _FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-value-or-file-'));
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, 'key-from-file\n');

  it('reads the file trimmed, or the value', () => {
    const base = { HOTEL_API_BASE_URL: 'https://supplier.example', HOTEL_API_SECRET: 's' };
    assert.equal(
      loadConfig({ ...base, HOTEL_API_KEY_FILE: keyFile }).hotelApi.key,
      'key-from-file',
    );
    assert.equal(loadConfig({ ...base, HOTEL_API_KEY: 'inline' }).hotelApi.key, 'inline');
  });

  it('refuses the supplier key set both ways in one line, never showing the value', () => {
    const problems = problemsOf({
      HOTEL_API_BASE_URL: 'https://supplier.example',
      HOTEL_API_KEY: 'inline-key-value',
      HOTEL_API_KEY_FILE: keyFile,
      HOTEL_API_SECRET: 's',
    });
    assert.deepEqual(problems, ['HOTEL_API_KEY and HOTEL_API_KEY_FILE: set only one of them']);
  });

  it('names a file it cannot read, and nothing else about that variable', () => {
    const problems = problemsOf({
      HOTEL_API_BASE_URL: 'https://supplier.example',
      HOTEL_API_KEY: 'k',
      HOTEL_API_SECRET_FILE: join(dir, 'missing'),
    });
    assert.deepEqual(problems, [
      `HOTEL_API_SECRET_FILE: cannot read ${JSON.stringify(join(dir, 'missing'))} (ENOENT)`,
    ]);
  });
});
