/**
 * The published contract (contract/*.schema.json) is what the zod contracts generate today, and
 * says what the workflows accept: an input with JSON null in every optional field is valid, and a
 * field added to a schema shows in the files.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONTRACT_DIR, contractFiles } from '../tools/scripts/contract-schemas';

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
        'cancelBooking.input.schema.json',
        'cancelBooking.result.schema.json',
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
});
