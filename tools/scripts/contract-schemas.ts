/**
 * The contract as JSON Schema (draft 2020-12), generated from the zod contracts in src/shared/, for
 * order systems in any language: `npm run contract` writes contract/*.schema.json and
 * contract/index.json; a test fails when the committed files differ from what this generates.
 * Inputs and update arguments are described as callers may send them (defaults optional, JSON
 * `null` accepted wherever the workflows read it as absent); answers as the workflows send them;
 * order events' bodies as `orderEventBody` POSTs them. Every field's description comes from its
 * zod schema (`.describe()`); each file's own description, here, says what the file is and the
 * rules of the contract its schema cannot state. Patterns are made to mean in Python's `re` and
 * Java's regex what they mean in ECMA 262 ({@link portablePatterns}).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_ORDER_ID_FIELD } from '../../src/config/defaults';
import { NULL_IS_ABSENT } from '../../src/shared/absent';
import {
  ApprovePriceChangeSchema,
  BOOK_ROOM_WORKFLOW,
  BookRoomInputSchema,
  CANCEL_BOOKING_WORKFLOW,
  CancelBookingInputSchema,
  CancelRequestSchema,
  OrderIdAloneSchema,
  ResolveReconciliationSchema,
} from '../../src/shared/booking-contract';
import { KeepRequestSchema } from '../../src/shared/guard-contract';
import { OrderEventType } from '../../src/order-events/contract/event';
import { orderEventBodySchema, orderEventWhen } from '../../src/order-events/contract/body-schemas';
import {
  BookRoomResultSchema,
  CancelBookingResultSchema,
  GuardingInputSchema,
  OrderResultSchema,
  OrderStateSchema,
} from '../../src/shared/result-schemas';

export const CONTRACT_DIR = join(__dirname, '..', '..', 'contract');

interface Entry {
  readonly workflow: string;
  /**
   * `input`, `order-id-input`, `result`, `query`, `update-argument`, `update-result`,
   * `continue-as-new-input`, `order-event`.
   */
  readonly kind: string;
  /** The query's or update's name, for messages; an order event's type. */
  readonly name?: string;
  readonly schema: z.ZodType;
  readonly io: 'input' | 'output';
  readonly title: string;
  /** What the file describes, and the rules of the contract its schema cannot state. */
  readonly description: string;
}

const NULL_MEANS_ABSENT = 'JSON null in an optional field means the field is absent.';
const CHARACTERS = 'Lengths count characters (Unicode code points), as maxLength does.';
const DURATIONS =
  'A duration string is converted to milliseconds in double precision and rounded, and must not round to 0: the pattern draws that line exactly at half a millisecond, so a string of 16 or more significant digits within about 1e-16 of it may be decided the other way.';
const PHASE_CHECKED =
  "Checked in code beyond this schema: the update's validator refuses a request that does not fit the order's phase and says why (the SDK raises its update-failed error)";
const UPDATE_ANSWER =
  "The update's answer: the order's state once the request is taken, as in bookRoom.bookingState.query.schema.json.";
const SENT = 'As the workflow sends it.';

const ENTRIES: readonly Entry[] = [
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'input',
    schema: BookRoomInputSchema,
    io: 'input',
    title:
      'bookRoom input (workflow id booking-<orderId>): the order, held by this one workflow from the first call to check-out',
    description: `The input a caller starts bookRoom with. ${NULL_MEANS_ABSENT} ${CHARACTERS} Checked in code beyond this schema: the workflow id must be booking-<orderId> (any other ends FAILED with INVALID_INPUT); customFields may not set the field the order id travels in, which this schema takes to be orderIdField, else ${DEFAULT_ORDER_ID_FIELD} (where the workers' BOOKING_ORDER_ID_FIELD is another field, send orderIdField, as BookingClient does). ${DURATIONS}`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'order-id-input',
    schema: OrderIdAloneSchema,
    io: 'input',
    title:
      'bookRoom input with the order id alone (workflow id booking-<orderId>): reaches an order, open or closed, and never books',
    description:
      "The start to send with the cancel or outcome update (update-with-start, conflict policy USE_EXISTING) when the order's own input is not at hand, or its workflow may have closed. A running workflow takes the update; otherwise a new run answers the order's decision (a cancel takes a supplier booking the order still holds and cancels it, or is refused with the reason: NOTHING_TO_CANCEL, PENALTY, CHECK_IN_PASSED), and ends FAILED with NO_ORDER when no run decided the order (the order id stays free). Checked in code beyond this schema: the workflow id must be booking-<orderId>.",
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'outcome',
    schema: BookRoomResultSchema,
    io: 'output',
    title:
      "bookRoom update outcome (no argument): the booking's decision, once there is one (send it with the start: update-with-start)",
    description: `The booking's decision, the answer of the outcome update (it takes no argument). ${SENT}`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'query',
    name: 'bookingState',
    schema: OrderStateSchema,
    io: 'output',
    title: "bookRoom's bookingState query: the order's one current truth, in every phase",
    description: `The order's state in every phase: the answer of the bookingState query (no argument) and of every update. ${SENT}`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'approvePriceChange',
    schema: ApprovePriceChangeSchema,
    io: 'input',
    title: 'bookRoom update approvePriceChange: argument',
    description: `The approvePriceChange update's argument. ${PHASE_CHECKED}: it is refused unless a price or policy change awaits approval (AWAITING_APPROVAL).`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'approvePriceChange',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update approvePriceChange: result (the order state)',
    description: UPDATE_ANSWER,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'resolveReconciliation',
    schema: ResolveReconciliationSchema,
    io: 'input',
    title: 'bookRoom update resolveReconciliation: argument',
    description: `The resolveReconciliation update's argument: { bookingId } or { noBooking: true }. ${NULL_MEANS_ABSENT} ${PHASE_CHECKED}: it is refused unless the order is NEEDS_RECONCILIATION; a bookingId is then read from the supplier, and its custom field must carry this order's id.`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'resolveReconciliation',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update resolveReconciliation: result (the order state)',
    description: UPDATE_ANSWER,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'cancel',
    schema: CancelRequestSchema,
    io: 'input',
    title: 'bookRoom update cancel: argument (cancels the order by its id, in every phase)',
    description: `The cancel update's argument: cancels the order by its id, in every phase. ${NULL_MEANS_ABSENT} ${CHARACTERS} ${PHASE_CHECKED}: once the order is guarded, a cancellation after free cancellation ended (or when its end is unknown) needs acceptPenalty: true, and none is taken after check-in.`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'cancel',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update cancel: result (the order state once the request is taken)',
    description: UPDATE_ANSWER,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-argument',
    name: 'keep',
    schema: KeepRequestSchema,
    io: 'input',
    title: 'bookRoom update keep (once CONFIRMED): argument',
    description: `The keep update's argument: the automatic cancellation of a provisional order (guard.autoCancelBeforePenalty) will not run. ${NULL_MEANS_ABSENT} ${CHARACTERS} ${PHASE_CHECKED}: it is taken once the order is guarded.`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'update-result',
    name: 'keep',
    schema: OrderStateSchema,
    io: 'output',
    title: 'bookRoom update keep: result (the order state)',
    description: UPDATE_ANSWER,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'result',
    schema: OrderResultSchema,
    io: 'output',
    title:
      'bookRoom result: at its decision when not guarded, else at check-out or once the order is cancelled (guard)',
    description: `The workflow's result: the decision and, for a guarded order, how its guard ended. ${SENT}`,
  },
  {
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'continue-as-new-input',
    schema: GuardingInputSchema,
    io: 'input',
    title:
      "bookRoom's own input when its guard continues as new (never sent by callers; seen in the run's history)",
    description:
      "What the order workflow hands to its next run when, guarding a CONFIRMED order, it continues as new (a long stay's history is kept small this way): the guard's input and the decision. Callers never send it; they see it as the input of such a run (the UI, `temporal workflow describe`). Checked by the workflow as it starts that run.",
  },
  {
    workflow: CANCEL_BOOKING_WORKFLOW,
    kind: 'input',
    schema: CancelBookingInputSchema,
    io: 'input',
    title: 'cancelBooking input (workflow id cancel-<bookingId>)',
    description: `The input cancelBooking is started with, workflow id cancel-<bookingId>. ${NULL_MEANS_ABSENT} ${CHARACTERS} ${DURATIONS}`,
  },
  {
    workflow: CANCEL_BOOKING_WORKFLOW,
    kind: 'result',
    schema: CancelBookingResultSchema,
    io: 'output',
    title: 'cancelBooking result',
    description: `The cancelBooking workflow's result. ${SENT}`,
  },
  ...Object.values(OrderEventType).map((type): Entry => ({
    workflow: BOOK_ROOM_WORKFLOW,
    kind: 'order-event',
    name: type,
    schema: orderEventBodySchema(type),
    io: 'output',
    title: `order event ${type}: the body POSTed when ${orderEventWhen(type)}`,
    description: `The JSON body of the Standard Webhooks POST of an order event of type ${type} (headers webhook-id, webhook-timestamp, webhook-signature: docs/order-events.md). Sent by the order's workflow (bookRoom) at least once, in sequence order per order.`,
  })),
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
      for (const name of names)
        properties[name] ??= {
          ...NULL,
          description: `null: absent (${name} belongs to the other form)`,
        };
      variant.properties = properties;
    }
  }
}

/**
 * `\d` written `[0-9]`: ECMA 262's `\d` is ASCII, Python's also matches other scripts' digits.
 * Escapes and character classes are followed, so `\\d` stays as it is.
 */
export function asciiDigits(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      out += next === 'd' ? (inClass ? '0-9' : '[0-9]') : `\\${next}`;
      i++;
    } else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      out += c;
    }
  }
  return out;
}

/**
 * Whether a pattern may match a line break: one that names a line break, white space or a negated
 * class. The others cannot, in ECMA 262; but Python's and Java's `$` also match before a final
 * line break, so a schema with such a pattern also refuses line breaks outright ({@link
 * portablePatterns}).
 */
function mayMatchLineBreak(pattern: string): boolean {
  return /\\[nrsSWD]|\[\^|\\u2028|\\u2029/.test(pattern);
}

/**
 * Makes every `pattern` mean, in Python's `re` and Java's regex, what it means in ECMA 262:
 * digits are ASCII, and a pattern that cannot match a line break is joined by
 * `not: { pattern: '[\n\r]' }`, since their `$` also matches before a final line break.
 */
function portablePatterns(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) portablePatterns(n);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const js = node as Json;
  for (const value of Object.values(js)) portablePatterns(value);
  if (typeof js.pattern !== 'string') return;
  const pattern = asciiDigits(js.pattern);
  js.pattern = pattern;
  if (!mayMatchLineBreak(pattern) && js.not === undefined) js.not = { pattern: '[\\n\\r]' };
}

/**
 * An answer or an event may gain fields ("fields are added, never renamed"): its objects stay open,
 * so a caller validating strictly keeps accepting what a later release sends.
 */
function openToAddedFields(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const js = node as Json;
  if (js.additionalProperties === false) delete js.additionalProperties;
  for (const value of Object.values(js)) openToAddedFields(value);
}

export function fileNameOf(e: Pick<Entry, 'workflow' | 'kind' | 'name'>): string {
  if (e.kind === 'order-event') return `orderEvent.${e.name}.schema.json`;
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
    }) as Json;
    portablePatterns(schema);
    if (e.io === 'output') openToAddedFields(schema);
    const doc = {
      $schema: schema.$schema,
      $id: fileNameOf(e),
      title: e.title,
      ...schema,
      description: e.description,
    };
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
