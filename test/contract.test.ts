/**
 * The published contract (contract/*.schema.json) is what the zod contracts generate today, and
 * says what the workflows accept: an input with JSON null in every optional field is valid, and a
 * field added to a schema shows in the files.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OrderEventType } from '../src/order-events/contract/event';
import { CONTRACT_DIR, asciiDigits, contractFiles } from '../tools/scripts/contract-schemas';

type Json = Record<string, unknown>;

/**
 * The properties of `node` and everything under it that have no description, as paths. The
 * conditions of `if`, `then`, `else` and `not` name fields without defining them: not walked.
 */
function undescribed(node: unknown, path: string): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => undescribed(n, `${path}[${i}]`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node as Json).flatMap(([key, value]) => {
    if (['if', 'then', 'else', 'not'].includes(key)) return [];
    if (key !== 'properties') return undescribed(value, `${path}/${key}`);
    return Object.entries(value as Record<string, Json>).flatMap(([name, sub]) => [
      ...(typeof sub.description === 'string' && sub.description.length > 0
        ? []
        : [`${path}.${name}`]),
      ...undescribed(sub, `${path}.${name}`),
    ]);
  });
}

/** Every `pattern` under `node`. */
function patterns(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(patterns);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node as Json).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string' ? [value] : patterns(value),
  );
}

describe('the published contract (contract/)', () => {
  it('holds exactly the files the zod contracts generate (run `npm run contract` after a change)', () => {
    const expected = contractFiles();
    const committed = readdirSync(CONTRACT_DIR).filter((f) => f.endsWith('.json'));
    assert.deepEqual(committed.sort(), Object.keys(expected).sort(), 'run `npm run contract`');
    for (const [name, text] of Object.entries(expected)) {
      assert.equal(
        readFileSync(join(CONTRACT_DIR, name), 'utf8'),
        text,
        `contract/${name} is out of date: run \`npm run contract\``,
      );
    }
  });

  it('describes every message of the contract, and JSON null where the workflows read it as absent', () => {
    const index = JSON.parse(contractFiles()['index.json']!) as { file: string; kind: string }[];
    assert.deepEqual(
      index.map((e) => e.file),
      [
        'bookRoom.input.schema.json',
        'bookRoom.order-id-input.schema.json',
        'bookRoom.outcome.update-result.schema.json',
        'bookRoom.bookingState.query.schema.json',
        'bookRoom.approvePriceChange.update-argument.schema.json',
        'bookRoom.approvePriceChange.update-result.schema.json',
        'bookRoom.resolveReconciliation.update-argument.schema.json',
        'bookRoom.resolveReconciliation.update-result.schema.json',
        'bookRoom.cancel.update-argument.schema.json',
        'bookRoom.cancel.update-result.schema.json',
        'bookRoom.keep.update-argument.schema.json',
        'bookRoom.keep.update-result.schema.json',
        'bookRoom.result.schema.json',
        'bookRoom.continue-as-new-input.schema.json',
        'cancelBooking.input.schema.json',
        'cancelBooking.result.schema.json',
        ...Object.values(OrderEventType).map((type) => `orderEvent.${type}.schema.json`),
      ],
    );
    const input = JSON.parse(contractFiles()['bookRoom.input.schema.json']!) as {
      properties: Record<string, { anyOf?: { type?: string }[]; type?: string | string[] }>;
      required: string[];
    };
    assert.deepEqual(input.required.sort(), ['contact', 'optionId', 'orderId', 'rooms']);
    for (const [field, schema] of Object.entries(input.properties)) {
      if (input.required.includes(field)) continue;
      assert.ok(
        schema.anyOf?.some((s) => s.type === 'null') ||
          (Array.isArray(schema.type) && schema.type.includes('null')),
        `bookRoom input: optional field ${field} must accept null`,
      );
    }
  });

  it('describes every property of every schema, and each file says what it is and what it cannot state', () => {
    for (const [name, text] of Object.entries(contractFiles())) {
      if (name === 'index.json') continue;
      const schema = JSON.parse(text) as Json;
      assert.equal(typeof schema.description, 'string', `contract/${name}: no description`);
      assert.deepEqual(
        undescribed(schema, ''),
        [],
        `contract/${name}: properties without a description`,
      );
    }
  });

  it('keeps answers and events open to added fields, and inputs closed to unknown ones', () => {
    const closed = (node: unknown): boolean =>
      typeof node === 'object' &&
      node !== null &&
      ((node as Json).additionalProperties === false || Object.values(node).some(closed));
    const index = JSON.parse(contractFiles()['index.json']!) as { kind: string; file: string }[];
    const sent = new Set(['result', 'query', 'update-result', 'order-event']);
    for (const { kind, file } of index) {
      const schema = JSON.parse(contractFiles()[file]!) as Json;
      if (sent.has(kind))
        assert.ok(!closed(schema), `contract/${file}: a field added later would fail it`);
    }
    const input = JSON.parse(contractFiles()['bookRoom.input.schema.json']!) as Json;
    assert.equal(
      input.additionalProperties,
      false,
      'an unknown input field is refused, as the workflow refuses it',
    );
  });

  it('writes patterns that Python reads as JavaScript does: ASCII digits, no line break before the end', () => {
    assert.equal(asciiDigits(String.raw`^\d{2}[\d.]\\d$`), String.raw`^[0-9]{2}[0-9.]\\d$`);
    for (const [name, text] of Object.entries(contractFiles())) {
      for (const p of patterns(JSON.parse(text)))
        assert.ok(!/(^|[^\\])(\\\\)*\\d/.test(p), `contract/${name}: \\d in ${p}`);
    }
    const input = JSON.parse(contractFiles()['bookRoom.input.schema.json']!) as {
      properties: Record<string, Json>;
    };
    assert.deepEqual(input.properties.orderId!.not, { pattern: '[\\n\\r]' });
  });
});
