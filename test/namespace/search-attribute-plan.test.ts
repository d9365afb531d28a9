/**
 * Preparing a namespace, without a server: what a namespace lacks of the product's search
 * attributes (present, missing, of another type), the commands printed for a person who may
 * register them (Temporal Cloud's `tcld`, the Temporal CLI), the line `setup` stops with, and
 * deploy/temporal/setup-namespace.sh registering the same attributes as `setup`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setupFailure } from '../../src/cli/commands/setup-command';
import { ExitCode } from '../../src/cli/exit-codes';
import {
  isTemporalCloud,
  registerAttributeCommands,
  retentionCommands,
  shellWord,
} from '../../src/namespace/operator-commands';
import { refusalOf } from '../../src/namespace/prepare-namespace';
import {
  cliTypeName,
  indexedValueTypeName,
  nameTypePairs,
  planSearchAttributes,
  PRODUCT_SEARCH_ATTRIBUTES,
} from '../../src/namespace/search-attribute-plan';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/shared/search-attributes';

const SELF_HOSTED = { namespace: 'bookings', address: 'temporal.internal:7233' };
const CLOUD = { namespace: 'bookings.a1b2c', address: 'bookings.a1b2c.tmprl.cloud:7233' };

/** Every product attribute registered with its own type, as the server lists them. */
const complete = () =>
  Object.fromEntries(PRODUCT_SEARCH_ATTRIBUTES.map((s) => [s.name, s.type as string]));

describe('the plan for a namespace', () => {
  it('is the one list of src/shared/search-attributes.ts, with its types', () => {
    assert.deepEqual(
      PRODUCT_SEARCH_ATTRIBUTES.map((s) => `${s.name}:${s.type}`),
      ALL_SEARCH_ATTRIBUTE_KEYS.map((k) => `${k.name}:${k.type}`),
    );
  });

  it('has nothing to do on a namespace that has them all; other attributes are left alone', () => {
    const plan = planSearchAttributes({ ...complete(), SomeoneElses: 'TEXT' });
    assert.equal(plan.present.length, PRODUCT_SEARCH_ATTRIBUTES.length);
    assert.deepEqual(plan.missing, []);
    assert.deepEqual(plan.conflicts, []);
  });

  it('registers what is missing and names an attribute of another type with both types', () => {
    const existing: Record<string, string> = complete();
    delete existing.OrderId;
    existing.BookingPhase = 'INT';
    const plan = planSearchAttributes(existing);
    assert.deepEqual(
      plan.missing.map((s) => s.name),
      ['OrderId'],
    );
    assert.deepEqual(plan.conflicts, [
      { name: 'BookingPhase', wanted: 'KEYWORD', registered: 'INT' },
    ]);
    assert.equal(plan.present.length, PRODUCT_SEARCH_ATTRIBUTES.length - 2);
  });

  it('reads no attribute from the prototype of the listing', () => {
    const plan = planSearchAttributes({}, [{ name: 'toString', type: 'KEYWORD' }]);
    assert.deepEqual(
      plan.missing.map((s) => s.name),
      ['toString'],
    );
  });

  it('spells types as the CLIs do, and the server enum as the SDK does', () => {
    assert.equal(cliTypeName('KEYWORD'), 'Keyword');
    assert.equal(cliTypeName('DATETIME'), 'Datetime');
    assert.equal(cliTypeName('KEYWORD_LIST'), 'KeywordList');
    assert.equal(indexedValueTypeName('INDEXED_VALUE_TYPE_INT', 3), 'INT');
    assert.equal(indexedValueTypeName(undefined, 42), 'UNKNOWN(42)');
  });
});

describe('deploy/temporal/setup-namespace.sh', () => {
  it('registers the same search attributes with the same types as `setup`', () => {
    const script = readFileSync(
      join(__dirname, '..', '..', 'deploy', 'temporal', 'setup-namespace.sh'),
      'utf8',
    );
    const declared = /^SEARCH_ATTRIBUTES="([^"]*)"/m.exec(script)?.[1]?.split(/\s+/) ?? [];
    assert.ok(declared.length > 0, 'the script declares SEARCH_ATTRIBUTES');
    assert.deepEqual([...declared].sort(), nameTypePairs(PRODUCT_SEARCH_ATTRIBUTES).sort());
  });
});

describe('the commands for a person allowed to change the namespace', () => {
  it('tells Temporal Cloud endpoints from others', () => {
    assert.ok(isTemporalCloud(CLOUD.address));
    assert.ok(isTemporalCloud('us-east-1.aws.api.temporal.io:7233'));
    assert.ok(!isTemporalCloud(SELF_HOSTED.address));
    assert.ok(!isTemporalCloud('localhost:7233'));
  });

  it('on Temporal Cloud: one tcld command with every attribute as Name=Type, first', () => {
    const specs = PRODUCT_SEARCH_ATTRIBUTES.slice(0, 2);
    const [first, ...rest] = registerAttributeCommands(CLOUD, specs);
    assert.equal(
      first,
      'tcld namespace search-attributes add --namespace bookings.a1b2c --search-attribute BookingPhase=Keyword --search-attribute SupplierBookingId=Int',
    );
    // The Temporal CLI's commands follow, for an admin's API key.
    assert.equal(rest.length, 2);
  });

  it('self-hosted: one Temporal CLI command per attribute (the CLI drops a --name without its --type)', () => {
    const specs = PRODUCT_SEARCH_ATTRIBUTES.filter((s) =>
      ['OrderId', 'CheckInDate'].includes(s.name),
    );
    assert.deepEqual(registerAttributeCommands(SELF_HOSTED, specs).slice(0, 2), [
      'temporal operator search-attribute create --address temporal.internal:7233 --namespace bookings --name OrderId --type Keyword',
      'temporal operator search-attribute create --address temporal.internal:7233 --namespace bookings --name CheckInDate --type Datetime',
    ]);
  });

  it('sets retention in days with either tool', () => {
    assert.deepEqual(retentionCommands(SELF_HOSTED, 30), [
      'temporal operator namespace update --address temporal.internal:7233 --namespace bookings --retention 30d',
      'tcld namespace retention set --namespace bookings --retention-days 30',
    ]);
    assert.match(retentionCommands(CLOUD, 30)[0]!, /^tcld namespace retention set/);
  });

  it('quotes a word the shell would split', () => {
    assert.equal(shellWord('plain.name-1'), 'plain.name-1');
    assert.equal(shellWord("it's mine"), `'it'\\''s mine'`);
  });
});

describe('where setup stops', () => {
  /** A refusal as the SDK's connection throws it (a grpc-js ServiceError). */
  const grpcError = (code: number, details: string) =>
    Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

  it('reads a refusal from its gRPC status, and nothing else as one', () => {
    assert.deepEqual(refusalOf(grpcError(7, 'Request unauthorized.')), {
      code: 'PERMISSION_DENIED',
      details: 'Request unauthorized.',
    });
    assert.equal(refusalOf(grpcError(14, 'unavailable')), undefined);
    assert.equal(refusalOf(new Error('not gRPC')), undefined);
  });

  it('without permission: one line saying what it cannot do, then the commands, exit 1', () => {
    const missing = PRODUCT_SEARCH_ATTRIBUTES.slice(0, 3);
    const err = setupFailure(
      {
        kind: 'refused',
        step: 'register',
        refusal: { code: 'PERMISSION_DENIED', details: 'Request unauthorized.' },
        toRegister: missing,
      },
      CLOUD,
    );
    assert.equal(err.exitCode, ExitCode.FAILED);
    const [line, ...commands] = err.message.split('\n');
    assert.match(
      line!,
      /refused to register the namespace 'bookings\.a1b2c'.*PERMISSION_DENIED: Request unauthorized\..*BookingPhase, SupplierBookingId, SupplierStatus.*Nothing was changed/,
    );
    assert.match(
      commands[0]!,
      /^ {2}tcld namespace search-attributes add --namespace bookings\.a1b2c /,
    );
    assert.equal(commands.length, 1 + missing.length);
    assert.deepEqual(
      err.issues.map((i) => i.field),
      missing.map((s) => s.name),
    );
  });

  it('with an attribute of another type: names it and both types, exit 1', () => {
    const err = setupFailure(
      { kind: 'conflict', conflicts: [{ name: 'OrderId', wanted: 'KEYWORD', registered: 'TEXT' }] },
      SELF_HOSTED,
    );
    assert.equal(err.exitCode, ExitCode.FAILED);
    assert.equal(err.code, 'SEARCH_ATTRIBUTE_TYPE_CONFLICT');
    assert.doesNotMatch(err.message, /\n/);
    assert.match(err.message, /OrderId is registered as Text; the product writes Keyword/);
  });
});
