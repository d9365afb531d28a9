/**
 * The development payload key stands in for unset PAYLOAD_ENCRYPTION_KEYS only with a development
 * Temporal: the pure decision, the loopback test behind it, and the configuration that applies it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseEnv } from '../../src/config';
import { DEV_KEY_ID, loadEncryptionConfig } from '../../src/config/codec';
import {
  developmentKeyDecision,
  type DevelopmentKeyFacts,
} from '../../src/config/development-key-decision';
import { hostOfAddress, isLoopbackAddress, isLoopbackUrl } from '../../src/config/loopback';

const facts = (over: Partial<DevelopmentKeyFacts>): DevelopmentKeyFacts => ({
  temporalAddress: 'localhost:7233',
  apiKey: false,
  nodeEnv: undefined,
  keyId: DEV_KEY_ID,
  ...over,
});

describe('the development key decision', () => {
  it('a Temporal on this machine without an API key gets the development key, silently', () => {
    for (const temporalAddress of [
      'localhost:7233',
      '127.0.0.1:17233',
      '[::1]:7233',
      'localhost',
    ]) {
      for (const nodeEnv of [undefined, 'test', 'development']) {
        assert.deepEqual(developmentKeyDecision(facts({ temporalAddress, nodeEnv })), {
          use: true,
        });
      }
    }
  });

  it('a Temporal elsewhere is refused in one line naming the variable, the address and the way out', () => {
    const d = developmentKeyDecision(facts({ temporalAddress: 'temporal.internal:7233' }));
    assert.equal(d.use, false);
    const problem = d.use ? '' : d.problem;
    assert.match(
      problem,
      /^PAYLOAD_ENCRYPTION_KEYS: required for Temporal at temporal\.internal:7233/,
    );
    assert.ok(problem.includes(`"${DEV_KEY_ID}"`), problem);
    assert.match(problem, /PAYLOAD_ENCRYPTION_KEYS_FILE/);
    assert.doesNotMatch(problem, /\n/);
  });

  it('an API key means Temporal Cloud, even through a tunnel on loopback: refused', () => {
    const d = developmentKeyDecision(facts({ temporalAddress: 'localhost:7233', apiKey: true }));
    assert.equal(d.use, false);
    assert.match(d.use ? '' : d.problem, /with an API key/);
  });

  it('NODE_ENV=production refuses it wherever Temporal is', () => {
    for (const temporalAddress of ['localhost:7233', 'temporal:7233']) {
      const d = developmentKeyDecision(facts({ temporalAddress, nodeEnv: 'production' }));
      assert.equal(d.use, false);
      assert.match(d.use ? '' : d.problem, /required when NODE_ENV=production/);
    }
  });

  it('NODE_ENV=development (docker compose) or test (npm test on a remote server) allows it with any Temporal, with a one-line warning', () => {
    for (const nodeEnv of ['development', 'test']) {
      const d = developmentKeyDecision(facts({ temporalAddress: 'temporal:7233', nodeEnv }));
      assert.equal(d.use, true);
      const warning = d.use ? (d.warning ?? '') : '';
      assert.match(warning, /PAYLOAD_ENCRYPTION_KEYS is unset/);
      assert.match(warning, /temporal:7233/);
      assert.ok(warning.includes(`NODE_ENV=${nodeEnv}`), warning);
      assert.doesNotMatch(warning, /\n/);
    }
  });

  it('another NODE_ENV (staging, a typo) says nothing about production: refused', () => {
    for (const nodeEnv of ['staging', 'developement', '']) {
      const d = developmentKeyDecision(facts({ temporalAddress: 'temporal:7233', nodeEnv }));
      assert.equal(d.use, false, nodeEnv);
    }
  });

  it('loopback is localhost, 127.0.0.0/8 and ::1, nothing else', () => {
    assert.equal(hostOfAddress('temporal.internal:7233'), 'temporal.internal');
    assert.equal(hostOfAddress('[::1]:7233'), '[::1]');
    assert.equal(hostOfAddress('::1'), '::1');
    for (const a of [
      'localhost:1',
      'LOCALHOST:1',
      '127.0.0.1:7233',
      '127.1.2.3:1',
      '[::1]:1',
      '::1',
    ])
      assert.ok(isLoopbackAddress(a), a);
    for (const a of [
      '0.0.0.0:7233',
      'temporal:7233',
      'localhost.example.com:7233',
      '10.0.0.1:7233',
      'ns.acct.tmprl.cloud:7233',
    ])
      assert.ok(!isLoopbackAddress(a), a);
    assert.ok(isLoopbackUrl('http://127.0.0.1:8080'));
    assert.ok(isLoopbackUrl('http://[::1]:8080/api'));
    assert.ok(!isLoopbackUrl('https://supplier.example.com'));
    assert.ok(!isLoopbackUrl('not a url'));
  });
});

describe('the configuration applies it (loadEncryptionConfig)', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      loadEncryptionConfig(parseEnv(env));
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.problems;
    }
    assert.fail('expected a ConfigError');
  };

  it('unset keys with a remote Temporal: one problem, for PAYLOAD_ENCRYPTION_KEYS', () => {
    const problems = refusal({ TEMPORAL_ADDRESS: 'temporal.internal:7233' });
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^PAYLOAD_ENCRYPTION_KEYS: /);
  });

  it('configured keys are used wherever Temporal is', () => {
    const spec = `ops:${Buffer.alloc(32, 7).toString('base64')}`;
    const config = loadEncryptionConfig(
      parseEnv({ TEMPORAL_ADDRESS: 'temporal.internal:7233', PAYLOAD_ENCRYPTION_KEYS: spec }),
    );
    assert.deepEqual(
      config.keys.map((k) => k.id),
      ['ops'],
    );
    assert.equal(config.development, false);
    assert.equal(config.warning, undefined);
  });

  it('the default address (localhost) keeps the development key, without a warning', () => {
    const config = loadEncryptionConfig(parseEnv({}));
    assert.equal(config.development, true);
    assert.equal(config.warning, undefined);
  });

  it('NODE_ENV=development with a remote Temporal: the development key and its warning', () => {
    const config = loadEncryptionConfig(
      parseEnv({ TEMPORAL_ADDRESS: 'temporal:7233', NODE_ENV: 'development' }),
    );
    assert.equal(config.development, true);
    assert.match(config.warning ?? '', /public development key/);
  });
});
