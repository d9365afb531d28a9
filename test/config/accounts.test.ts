/**
 * Supplier accounts as configuration: the default account of the `HOTEL_API_*` variables first,
 * then those of SUPPLIER_ACCOUNTS (or SUPPLIER_ACCOUNTS_FILE), each field left out taken from the
 * default's. Every problem is one line naming the variable, the account and the field, and never
 * echoes a key, a secret or the JSON text.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { problemsOf as configProblems } from '../helpers/config-problems';
import {
  assertSupplierCredentials,
  ConfigError,
  DEV_CREDENTIALS,
  loadConfig,
} from '../../src/config';
import { loadWorkerConfig } from '../../src/worker-config';
import { shutdownGraceMsFor } from '../../src/workflows/activity-options';

const SECRET = 'eu-secret-SENTINEL-4711';
const KEY = 'eu-key-SENTINEL-0815';

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadConfig, env);
const accounts = (...list: unknown[]) => ({ SUPPLIER_ACCOUNTS: JSON.stringify(list) });
const eu = (over: Record<string, unknown> = {}) => ({
  id: 'eu',
  baseUrl: 'https://eu.supplier.example',
  key: KEY,
  secret: SECRET,
  ...over,
});

/** A file holding `text` in a fresh directory. */
function fileOf(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hbo-accounts-')), name);
  writeFileSync(path, text);
  return path;
}

/** The one problem `env` has; the sentinels never in it. */
function oneProblem(env: NodeJS.ProcessEnv): string {
  const problems = problemsOf(env);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.ok(!problems[0]!.includes(SECRET), 'the secret is not echoed');
  assert.ok(!problems[0]!.includes(KEY), 'the key is not echoed');
  assert.ok(!problems[0]!.includes('\n'), 'one line');
  return problems[0]!;
}

describe('supplier accounts', () => {
  it('without SUPPLIER_ACCOUNTS: the default account alone, as the HOTEL_API_* variables configure it', () => {
    const config = loadConfig({});
    assert.equal(config.suppliers.length, 1);
    assert.equal(config.suppliers[0]!.hotelApi, config.hotelApi);
    assert.deepEqual(config.suppliers, [
      {
        id: 'default',
        enabled: true,
        hotelApi: {
          baseUrl: 'http://127.0.0.1:8080',
          key: DEV_CREDENTIALS.key,
          secret: DEV_CREDENTIALS.secret,
          timeouts: { bookingMs: 120_000, readMs: 15_000, searchMs: 30_000 },
          clockCorrection: true,
          maxConnections: 64,
        },
        maxCallsPerSecond: 0,
        maxConcurrentCalls: 100,
      },
    ]);
    const capped = loadConfig({
      SUPPLIER_MAX_CALLS_PER_SECOND: '12.5',
      SUPPLIER_MAX_CONCURRENT_CALLS: '7',
    });
    assert.equal(capped.suppliers[0]!.maxCallsPerSecond, 12.5);
    assert.equal(capped.suppliers[0]!.maxConcurrentCalls, 7);
    assert.equal(capped.worker.maxSupplierCallsPerSecond, 12.5);
    assert.equal(capped.worker.maxConcurrentSupplierCalls, 7);
  });

  it('parses two accounts in their order, each field left out taken from the default account', () => {
    const config = loadConfig({
      HOTEL_API_BOOKING_TIMEOUT_MS: '100000',
      HOTEL_API_READ_TIMEOUT_MS: '12000',
      HOTEL_API_SEARCH_TIMEOUT_MS: '25000',
      HOTEL_API_CLOCK_CORRECTION: 'false',
      HOTEL_API_MAX_CONNECTIONS: '8',
      SUPPLIER_MAX_CALLS_PER_SECOND: '50',
      SUPPLIER_MAX_CONCURRENT_CALLS: '9',
      ...accounts(eu(), {
        id: 'us-east',
        baseUrl: 'https://us.supplier.example/v2',
        key: 'us-key',
        secret: 'us-secret',
        enabled: false,
        maxCallsPerSecond: 2.5,
        maxConcurrentCalls: 3,
        bookingTimeoutMs: 200_000,
        readTimeoutMs: 10_000,
        searchTimeoutMs: 20_000,
        maxConnections: 4,
      }),
    });
    assert.deepEqual(
      config.suppliers.map((a) => a.id),
      ['default', 'eu', 'us-east'],
    );
    assert.deepEqual(config.suppliers[1], {
      id: 'eu',
      enabled: true,
      hotelApi: {
        baseUrl: 'https://eu.supplier.example',
        key: KEY,
        secret: SECRET,
        timeouts: { bookingMs: 100_000, readMs: 12_000, searchMs: 25_000 },
        clockCorrection: false,
        maxConnections: 8,
      },
      maxCallsPerSecond: 0,
      maxConcurrentCalls: 9,
    });
    assert.deepEqual(config.suppliers[2], {
      id: 'us-east',
      enabled: false,
      hotelApi: {
        baseUrl: 'https://us.supplier.example/v2',
        key: 'us-key',
        secret: 'us-secret',
        timeouts: { bookingMs: 200_000, readMs: 10_000, searchMs: 20_000 },
        clockCorrection: false,
        maxConnections: 4,
      },
      maxCallsPerSecond: 2.5,
      maxConcurrentCalls: 3,
    });
    assert.equal(config.suppliers[0]!.maxCallsPerSecond, 50);
    assert.equal(config.hotelApi.timeouts.bookingMs, 100_000, 'the default account is unchanged');
  });

  it('reads keyFile and secretFile (trimmed)', () => {
    const keyFile = fileOf('key', `${KEY}\n`);
    const secretFile = fileOf('secret', `  ${SECRET}\n`);
    const config = loadConfig(
      accounts({ id: 'eu', baseUrl: 'https://eu.supplier.example', keyFile, secretFile }),
    );
    assert.equal(config.suppliers[1]!.hotelApi.key, KEY);
    assert.equal(config.suppliers[1]!.hotelApi.secret, SECRET);
  });

  it('reads the JSON from SUPPLIER_ACCOUNTS_FILE', () => {
    const file = fileOf('accounts.json', JSON.stringify([eu(), eu({ id: 'asia' })], null, 2));
    const config = loadConfig({ SUPPLIER_ACCOUNTS_FILE: file });
    assert.deepEqual(
      config.suppliers.map((a) => a.id),
      ['default', 'eu', 'asia'],
    );
    assert.deepEqual(loadConfig({ SUPPLIER_ACCOUNTS: '[]' }).suppliers.length, 1);
  });

  it('SUPPLIER_DEFAULT_ENABLED=false (or 0) disables the default account; every account may be disabled', () => {
    for (const off of ['false', '0']) {
      const config = loadConfig({
        SUPPLIER_DEFAULT_ENABLED: off,
        ...accounts(eu({ enabled: false })),
      });
      assert.deepEqual(
        config.suppliers.map((a) => [a.id, a.enabled]),
        [
          ['default', false],
          ['eu', false],
        ],
      );
    }
    for (const on of ['true', '1']) {
      assert.equal(loadConfig({ SUPPLIER_DEFAULT_ENABLED: on }).suppliers[0]!.enabled, true);
    }
    assert.match(oneProblem({ SUPPLIER_DEFAULT_ENABLED: 'no' }), /^SUPPLIER_DEFAULT_ENABLED: /);
  });

  it('a loopback account without key and secret gets the simulator demo credentials', () => {
    for (const baseUrl of ['http://127.0.0.1:9090', 'http://localhost:8080', 'https://[::1]:1']) {
      const config = loadConfig(accounts({ id: 'sim', baseUrl }));
      assert.equal(config.suppliers[1]!.hotelApi.key, DEV_CREDENTIALS.key);
      assert.equal(config.suppliers[1]!.hotelApi.secret, DEV_CREDENTIALS.secret);
    }
    assert.equal(
      oneProblem(accounts({ id: 'sim', baseUrl: 'http://127.0.0.1:9090', key: KEY })),
      'SUPPLIER_ACCOUNTS: account "sim": secret: required (secret or secretFile)',
    );
    assert.deepEqual(problemsOf(accounts({ id: 'eu', baseUrl: 'https://eu.supplier.example' })), [
      'SUPPLIER_ACCOUNTS: account "eu": key: required (key or keyFile)',
      'SUPPLIER_ACCOUNTS: account "eu": secret: required (secret or secretFile)',
    ]);
  });

  it('refuses each bad account in one line naming the variable, the account and the field', () => {
    const cases: [NodeJS.ProcessEnv, string | RegExp][] = [
      [
        accounts(eu({ secret: undefined })),
        'SUPPLIER_ACCOUNTS: account "eu": secret: required (secret or secretFile)',
      ],
      [accounts(eu(), eu({ key: 'k2' })), 'SUPPLIER_ACCOUNTS: account "eu" is named twice'],
      [
        accounts(eu({ id: 'default' })),
        'SUPPLIER_ACCOUNTS: account "default": the default account is configured by HOTEL_API_* (use another id)',
      ],
      [
        accounts(eu({ baseUrl: 'http://eu.supplier.example' })),
        'SUPPLIER_ACCOUNTS: account "eu": baseUrl: plain http:// only on a loopback host; use https://',
      ],
      [
        accounts(eu({ baseUrl: undefined })),
        'SUPPLIER_ACCOUNTS: account "eu": baseUrl: required (the supplier\'s base URL, https://)',
      ],
      [
        accounts(eu({ baseUrl: `ftp://${SECRET}@eu.example` })),
        'SUPPLIER_ACCOUNTS: account "eu": baseUrl: must be an https:// URL (http:// on a loopback host)',
      ],
      [
        accounts(eu({ baseUrl: SECRET })),
        'SUPPLIER_ACCOUNTS: account "eu": baseUrl: must be an https:// URL (http:// on a loopback host)',
      ],
      [
        accounts(eu(), eu({ id: 'us' }), eu({ id: undefined })),
        'SUPPLIER_ACCOUNTS[2].id: required',
      ],
      [
        accounts(eu({ id: SECRET })),
        'SUPPLIER_ACCOUNTS[0].id: must be lower-case letters, digits and -, a letter first, at most 32 characters',
      ],
      [accounts(eu(), SECRET), 'SUPPLIER_ACCOUNTS[1]: not an account object'],
      [
        { SUPPLIER_ACCOUNTS: `[{"id": "eu", "secret": "${SECRET}"` },
        'SUPPLIER_ACCOUNTS: not a JSON array of accounts',
      ],
      [
        { SUPPLIER_ACCOUNTS: `{"id": "eu", "secret": "${SECRET}"}` },
        'SUPPLIER_ACCOUNTS: not a JSON array of accounts',
      ],
      [{ SUPPLIER_ACCOUNTS: SECRET }, 'SUPPLIER_ACCOUNTS: not a JSON array of accounts'],
      [
        accounts(eu({ secret: undefined, secretFile: '/no/such/dir/secret' })),
        'SUPPLIER_ACCOUNTS: account "eu": secretFile: cannot read "/no/such/dir/secret" (ENOENT)',
      ],
      [
        accounts(eu({ key: undefined, keyFile: fileOf('empty', '\n') })),
        /^SUPPLIER_ACCOUNTS: account "eu": keyFile: ".*empty" is empty$/,
      ],
      [
        accounts(eu({ keyFile: '/no/such/dir/key' })),
        'SUPPLIER_ACCOUNTS: account "eu": key: set key or keyFile, not both',
      ],
      [
        accounts(eu({ secretFile: '/no/such/dir/secret' })),
        'SUPPLIER_ACCOUNTS: account "eu": secret: set secret or secretFile, not both',
      ],
      [
        accounts(eu({ secret: '' })),
        'SUPPLIER_ACCOUNTS: account "eu": secret: must be a non-empty string',
      ],
      [
        accounts(eu({ enabled: 'yes' })),
        'SUPPLIER_ACCOUNTS: account "eu": enabled: must be true or false',
      ],
      [
        accounts(eu({ maxCallsPerSecond: -1 })),
        'SUPPLIER_ACCOUNTS: account "eu": maxCallsPerSecond: must be a number, at least 0 (0 = no cap)',
      ],
      [
        accounts(eu({ maxConcurrentCalls: 0 })),
        'SUPPLIER_ACCOUNTS: account "eu": maxConcurrentCalls: must be a positive integer',
      ],
      [
        accounts(eu({ bookingTimeoutMs: 1.5 })),
        'SUPPLIER_ACCOUNTS: account "eu": bookingTimeoutMs: must be a positive integer',
      ],
      [
        accounts(eu({ readTimeoutMs: '15000' })),
        'SUPPLIER_ACCOUNTS: account "eu": readTimeoutMs: must be a positive integer',
      ],
      [
        accounts(eu({ searchTimeoutMs: -5 })),
        'SUPPLIER_ACCOUNTS: account "eu": searchTimeoutMs: must be a positive integer',
      ],
      [
        accounts(eu({ maxConnections: null })),
        'SUPPLIER_ACCOUNTS: account "eu": maxConnections: must be a positive integer',
      ],
    ];
    for (const [env, expected] of cases) {
      const problem = oneProblem(env);
      if (typeof expected === 'string') assert.equal(problem, expected);
      else assert.match(problem, expected);
    }
  });

  it('refuses an unknown field (strict), naming the field and never its value', () => {
    const problem = oneProblem(accounts(eu({ secert: SECRET })));
    assert.match(
      problem,
      /^SUPPLIER_ACCOUNTS: account "eu": secert: not a field of an account \(id, baseUrl, /,
    );
    const odd = oneProblem(accounts(eu({ [`a\nb ${SECRET}`]: 1 })));
    assert.match(
      odd,
      /^SUPPLIER_ACCOUNTS: account "eu": a field whose name is not one of an account's /,
    );
  });

  it('refuses SUPPLIER_ACCOUNTS and SUPPLIER_ACCOUNTS_FILE together, and a file it cannot read or parse', () => {
    const file = fileOf('accounts.json', JSON.stringify([eu()]));
    assert.equal(
      oneProblem({ ...accounts(eu()), SUPPLIER_ACCOUNTS_FILE: file }),
      'SUPPLIER_ACCOUNTS and SUPPLIER_ACCOUNTS_FILE: set only one of them',
    );
    assert.equal(
      oneProblem({ SUPPLIER_ACCOUNTS_FILE: '/no/such/accounts.json' }),
      'SUPPLIER_ACCOUNTS_FILE: cannot read "/no/such/accounts.json" (ENOENT)',
    );
    const bad = fileOf('bad.json', `[{"id": "eu", "secret": "${SECRET}",]`);
    assert.equal(
      oneProblem({ SUPPLIER_ACCOUNTS_FILE: bad }),
      `SUPPLIER_ACCOUNTS_FILE: ${JSON.stringify(bad)} is not a JSON array of accounts`,
    );
  });

  it('names every problem of every account at once', () => {
    const problems = problemsOf(
      accounts(eu({ secret: undefined }), eu({ id: 'us', baseUrl: 'http://us.example' })),
    );
    assert.deepEqual(problems, [
      'SUPPLIER_ACCOUNTS: account "eu": secret: required (secret or secretFile)',
      'SUPPLIER_ACCOUNTS: account "us": baseUrl: plain http:// only on a loopback host; use https://',
    ]);
  });

  it('loaded without requiring credentials, an account lacking them is refused before a supplier call', () => {
    const config = loadConfig(accounts({ id: 'eu', baseUrl: 'https://eu.supplier.example' }), {
      requireSupplierCredentials: false,
    });
    assert.equal(config.suppliers[1]!.hotelApi.key, '');
    assert.throws(
      () => assertSupplierCredentials(config),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.join('\n') ===
          [
            'SUPPLIER_ACCOUNTS: account "eu": key: required (key or keyFile)',
            'SUPPLIER_ACCOUNTS: account "eu": secret: required (secret or secretFile)',
          ].join('\n'),
    );
    assertSupplierCredentials(loadConfig(accounts(eu()), { requireSupplierCredentials: false }));
  });
});

describe("the worker's checks of the accounts' timeouts", () => {
  const workerProblems = (env: NodeJS.ProcessEnv) => configProblems(loadWorkerConfig, env);

  it("refuses an account's timeout the activities cannot honour, naming the account and its field", () => {
    assert.deepEqual(workerProblems(accounts(eu({ readTimeoutMs: 30_000 }))), [
      'SUPPLIER_ACCOUNTS: account "eu": readTimeoutMs: 30000 is over 18000: supplier reads run in activities of 20 s (src/workflows/activity-options.ts)',
    ]);
    const booking = workerProblems(accounts(eu({ bookingTimeoutMs: 900_000 })));
    assert.equal(booking.length, 1, booking.join('\n'));
    assert.match(
      booking[0]!,
      /^SUPPLIER_ACCOUNTS: account "eu": bookingTimeoutMs: 900000 is over /,
    );
  });

  it("tells a timeout an account takes from the default account once, by the default's line", () => {
    const problems = workerProblems({ HOTEL_API_READ_TIMEOUT_MS: '30000', ...accounts(eu()) });
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /^HOTEL_API_READ_TIMEOUT_MS: 30000 is over /);
  });

  it("derives the shutdown grace from the accounts' longest booking timeout", () => {
    assert.equal(loadWorkerConfig(accounts(eu())).worker.shutdownGraceMs, 135_000);
    assert.equal(
      loadWorkerConfig(accounts(eu({ bookingTimeoutMs: 300_000 }))).worker.shutdownGraceMs,
      shutdownGraceMsFor(300_000),
    );
  });
});
