/**
 * The contract as JSON Schema (draft 2020-12), generated from the zod contracts in src/shared/, for
 * order systems in any language: `npm run contract` writes contract/*.schema.json and
 * contract/index.json; a test fails when the committed files differ from what this generates.
 * Inputs and update arguments are described as callers may send them (defaults optional, JSON
 * `null` accepted wherever the workflows read it as absent); answers as the workflows send them.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { NULL_IS_ABSENT } from '../../src/shared/absent';
import {
  ApprovePriceChangeSchema,
  BOOK_ROOM_WORKFLOW,
  BookRoomInputSchema,
  CANCEL_BOOKING_WORKFLOW,
  CancelBookingInputSchema,
  CancelRequestSchema,
  ResolveReconciliationSchema,
} from '../../src/shared/booking-contract';
import { KeepRequestSchema } from '../../src/shared/guard-contract';
import {
  BookRoomResultSchema,
  CancelBookingResultSchema,
  OrderResultSchema,
  OrderStateSchema,
} from '../../src/shared/result-schemas';

export const CONTRACT_DIR = join(__dirname, '..', '..', 'contract');

interface Entry {
  readonly workflow: string;
  /** `input`, `result`, `query`, `update-argument`, `update-result`. */
  readonly kind: string;
  /** The query's or update's name, for messages. */
  readonly name?: string;
  readonly schema: z.ZodType;
  readonly io: 'input' | 'output';
  readonly title: string;
}

const ENTRIES: readonly Entry[] = [
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'input',
    schema: BookRoomInputSchema,
    io: 'input',
    title:
      'bookRoom input (workflow id booking-<orderId>): the order, held by this one workflow from the first call to check-out',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'outcome',
    schema: BookRoomResultSchema,
    io: 'output',
    title:
      "bookRoom update outcome (no argument): the booking's decision, once there is one (send it with the start: update-with-start)",
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'query',
    name: 'bookingState',
    schema: OrderStateSchema,
    io: 'output',
    title: "bookRoom's bookingState query: the order's one current truth, in every phase",
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'approvePriceChange',
    schema: ApprovePriceChangeSchema,
    io: 'input',
    title: 'bookRoom update approvePriceChange: argument',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'approvePriceChange',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update approvePriceChange: result (the order state)',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'resolveReconciliation',
    schema: ResolveReconciliationSchema,
    io: 'input',
    title: 'bookRoom update resolveReconciliation: argument',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'resolveReconciliation',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update resolveReconciliation: result (the order state)',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'cancel',
    schema: CancelRequestSchema,
    io: 'input',
    title: 'bookRoom update cancel: argument (cancels the order by its id, in every phase)',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'cancel',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update cancel: result (the order state once the request is taken)',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'keep',
    schema: KeepRequestSchema,
    io: 'input',
    title: 'bookRoom update keep (once CONFIRMED): argument',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'keep',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update keep: result (the order state)',
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'result',
    schema: OrderResultSchema,
    io: 'output',
    title:
      'bookRoom result: at its decision when not guarded, else at check-out or once the order is cancelled (guard)',
  },
  {
    workflow: CANCEL_BOOKING_WORKFLOW,
    kind: 'input',
    schema: CancelBookingInputSchema,
    io: 'input',
    title: 'cancelBooking input (workflow id cancel-<bookingId>)',
  },
  {
    workflow: CANCEL_BOOKING_WORKFLOW,
    kind: 'result',
    schema: CancelBookingResultSchema,
    io: 'output',
    title: 'cancelBooking result',
  },
];

type Json = Record<string, unknown>;
const NULL: Json = { type: 'null' };

/** A JSON Schema that also accepts `null`, keeping its default and description outside. */
function orNull(schema: Json): Json {
  const { default: dflt, description, ...rest } = schema;
  return {
    ...(description !== undefined ? { description } : {}),
    anyOf: [rest, NULL],
    ...(dflt !== undefined ? { default: dflt } : {}),
  };
}

/** Applies the {@link NULL_IS_ABSENT} marks zod's generator cannot see through preprocessing. */
function nullIsAbsent(ctx: { jsonSchema: Json }): void {
  const js = ctx.jsonSchema;
  const mark = js[NULL_IS_ABSENT];
  if (mark === undefined) return;
  delete js[NULL_IS_ABSENT];
  if (mark === 'field') {
    const wrapped = orNull({ ...js });
    for (const key of Object.keys(js)) delete js[key];
    Object.assign(js, wrapped);
  } else if (mark === 'values' && typeof js.additionalProperties === 'object') {
    js.additionalProperties = orNull(js.additionalProperties as Json);
  } else if (mark === 'fields' && Array.isArray(js.anyOf)) {
    const variants = js.anyOf as Json[];
    const names = variants.flatMap((v) => Object.keys((v.properties as Json | undefined) ?? {}));
    for (const variant of variants) {
      const properties = (variant.properties ?? {}) as Json;
      for (const name of names) properties[name] ??= NULL;
      variant.properties = properties;
    }
  }
}

export function fileNameOf(e: Pick<Entry, 'workflow' | 'kind' | 'name'>): string {
  return `${e.workflow}.${e.name ? `${e.name}.` : ''}${e.kind}.schema.json`;
}

/** File name → file text, for every published schema and the index. */
export function contractFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const e of ENTRIES) {
    const schema = z.toJSONSchema(e.schema, {
      io: e.io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
      override: nullIsAbsent,
    });
    const doc = { $schema: schema.$schema, $id: fileNameOf(e), title: e.title, ...schema };
    files[fileNameOf(e)] = `${JSON.stringify(doc, null, 2)}\n`;
  }
  const index = ENTRIES.map((e) => ({
    workflow: e.workflow,
    kind: e.kind,
    ...(e.name ? { name: e.name } : {}),
    file: fileNameOf(e),
    title: e.title,
  }));
  files['index.json'] = `${JSON.stringify(index, null, 2)}\n`;
  return files;
}

if (require.main === module) {
  mkdirSync(CONTRACT_DIR, { recursive: true });
  for (const f of readdirSync(CONTRACT_DIR)) {
    if (f.endsWith('.json')) rmSync(join(CONTRACT_DIR, f));
  }
  const files = contractFiles();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(CONTRACT_DIR, name), text);
  console.log(`Wrote ${Object.keys(files).length} files to contract/`);
}
