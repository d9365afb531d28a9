/**
 * The hostile mode: the supplier answering in every broken way a real one (or a proxy before it)
 * can, so that the product's client and activities are fuzzed against it (tools/fuzz/supplier.ts).
 * Off unless a rule is given, at build time (`hostile` option, `--hostile`) or at runtime
 * (`POST /__sim/hostile`). A rule names a kind, optionally an endpoint, a seed, how many answers it
 * spoils, and a text the request must contain (an order id: one rule per order). The endpoint still
 * runs (a booking is committed) and its answer is replaced; only a refusal (401, 403, 422, 429) is
 * answered instead of running it, as a supplier refuses before processing. Every choice is drawn
 * from the rule's seed and the count of answers it spoiled: the same rule spoils the same way.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { EndpointName } from './endpoints';
import { ENDPOINTS } from './endpoints';
import type { Changed, SeenRequest } from './hostile-bodies';
import * as bodies from './hostile-bodies';
import { huge, reset, trickle, type Wire } from './hostile-wire';
import type { Prng } from './prng';
import { createPrng, hashString } from './prng';

export type { SeenRequest } from './hostile-bodies';

/** The kinds, in the order docs/simulator.md lists them. */
export const HOSTILE_KINDS = [
  'malformed-json',
  'truncated-json',
  'huge-body',
  'trickle',
  'wrong-content-type',
  'html-error',
  'error-body',
  'unknown-status',
  'unknown-enum',
  'missing-field',
  'extra-field',
  'date-format',
  'negative-id',
  'huge-id',
  'changing-id',
  'reset-mid-body',
  'echo-request',
  'retry-after',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

export const HostileRuleSchema = z.strictObject({
  kind: z.enum(HOSTILE_KINDS),
  /** @default every endpoint */
  endpoint: z.enum([...ENDPOINTS, '*']).optional(),
  /** @default the simulator's seed */
  seed: z.number().int().optional(),
  /** Answers it spoils before it is dropped. @default every answer */
  times: z.number().int().positive().optional(),
  /** Only requests whose target or body contain this text. @default every request */
  when: z.string().min(1).max(200).optional(),
});
export type HostileRule = z.infer<typeof HostileRuleSchema>;

/** `POST /__sim/hostile`: a rule to add, or `{ clear: true }`. */
export const HostileChangeSchema = z.union([
  HostileRuleSchema,
  z.strictObject({ clear: z.literal(true) }),
]);

/** One spoiled answer, as inspection shows it. */
export interface HostileApplied {
  readonly kind: HostileKind;
  readonly endpoint: EndpointName;
  readonly seed: number;
  /** What was done, in words (a truncation point, a field, a status, a content type). */
  variant: string;
  /** The status line written, when one was. */
  status?: number;
  /** Whether the endpoint ran (a booking committed) before the answer was spoiled. */
  processed: boolean;
}

/** A rule matched to one request: its draws and its record. */
export interface Armed {
  readonly kind: HostileKind;
  readonly prng: Prng;
  readonly seen: SeenRequest;
  readonly record: HostileApplied;
  /** The status, when the kind chose it as it was armed. */
  readonly status?: number;
  /** A refusal: answered instead of running the endpoint. */
  readonly preempts: boolean;
}

/** The answer the endpoint gave (or, for a refusal, would have given). */
export interface Answer {
  readonly status: number;
  readonly body: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

const REFUSALS = new Set([401, 403, 422, 429]);
const pick = <T>(prng: Prng, items: readonly T[]): T => items[prng.int(items.length)] as T;
const ECHO_STATUSES = [400, 401, 403, 409, 422, 500, 502];
const RETRY_STATUSES = [429, 503];
const KEPT = 100;

/** The rules in force and the answers they spoiled. */
export class HostileMode {
  #rules: { rule: HostileRule; left: number; used: number }[] = [];
  #applied: HostileApplied[] = [];
  #total = 0;

  constructor(
    private readonly built: readonly HostileRule[],
    private readonly defaultSeed: number,
  ) {
    this.reset();
  }

  rules(): HostileRule[] {
    return this.#rules.map((r) => ({ ...r.rule, ...(r.rule.times ? { times: r.left } : {}) }));
  }

  add(rule: HostileRule): void {
    this.#rules.push({ rule, left: rule.times ?? Infinity, used: 0 });
  }

  clear(): void {
    this.#rules = [];
  }

  /** Back to the rules as built; forgets what was spoiled. */
  reset(): void {
    this.clear();
    for (const rule of this.built) this.add(rule);
    this.#applied = [];
    this.#total = 0;
  }

  /** The last answers spoiled (at most 100, oldest first) and how many in all. */
  applied(): { total: number; last: HostileApplied[] } {
    return { total: this.#total, last: this.#applied.map((a) => ({ ...a })) };
  }

  /** The first rule matching a request to `endpoint`, armed and counted; else `undefined`. */
  arm(endpoint: EndpointName, seen: SeenRequest): Armed | undefined {
    const r = this.#rules.find(
      ({ rule }) =>
        (rule.endpoint === undefined || rule.endpoint === '*' || rule.endpoint === endpoint) &&
        (rule.when === undefined ||
          seen.target.includes(rule.when) ||
          seen.body.includes(rule.when)),
    );
    if (r === undefined) return undefined;
    r.left -= 1;
    if (r.left <= 0) this.#rules.splice(this.#rules.indexOf(r), 1);
    const seed = r.rule.seed ?? this.defaultSeed;
    const prng = createPrng(hashString(`${seed}:${r.used}`));
    r.used += 1;
    const record: HostileApplied = {
      kind: r.rule.kind,
      endpoint,
      seed,
      variant: '',
      processed: true,
    };
    this.#total += 1;
    this.#applied.push(record);
    if (this.#applied.length > KEPT) this.#applied.shift();
    const kind = r.rule.kind;
    const status =
      kind === 'echo-request'
        ? pick(prng, ECHO_STATUSES)
        : kind === 'retry-after'
          ? pick(prng, RETRY_STATUSES)
          : undefined;
    const preempts = status !== undefined && REFUSALS.has(status);
    if (preempts) record.processed = false;
    return { kind, prng, seen, record, preempts, ...(status !== undefined ? { status } : {}) };
  }
}

const CONTENT_TYPES: readonly (string | null)[] = [
  'text/html; charset=utf-8',
  'text/plain',
  'application/xml',
  'application/octet-stream',
  null,
  'application/jsonp',
  'json',
  'text/json',
  'application/problem+json',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
];
const HTML_STATUSES = [500, 502, 503, 504, 520, 200];
const UNKNOWN_STATUSES = [
  203, 205, 206, 207, 226, 299, 300, 301, 302, 304, 307, 400, 402, 404, 405, 406, 408, 409, 410,
  413, 418, 425, 451, 499, 501, 505, 507, 511, 520, 599, 600, 799, 999,
];
const RETRY_AFTER = [
  '-5',
  '0',
  '1e9',
  'soon',
  '99999999999999999999',
  '86400000',
  'Wed, 21 Oct 2015 07:28:00 GMT',
  'Fri, 31 Dec 9999 23:59:59 GMT',
  '',
];

/** Writes the spoiled answer. Never throws: a broken write only ends the connection. */
export function answerHostile(res: ServerResponse, armed: Armed, answer: Answer): void {
  try {
    spoil(res, armed, answer);
  } catch {
    res.destroy();
  }
}

function spoil(res: ServerResponse, armed: Armed, answer: Answer): void {
  const { prng, record } = armed;
  // A bodiless answer (204) is spoiled as the JSON answer of its endpoint (202).
  const status = armed.status ?? (answer.status === 204 ? 202 : answer.status);
  const body = answer.body ?? '{"status":"OK","message":null}';
  const wire: Wire = { res, prng, record };
  const json = (changed: Changed, at = status, headers: Record<string, string> = {}) =>
    send(wire, at, changed, 'application/json', { ...answer.headers, ...headers });
  switch (armed.kind) {
    case 'malformed-json':
      return json(bodies.malformed(body, prng));
    case 'truncated-json':
      return json(bodies.truncated(body, prng));
    case 'huge-body':
      return void huge(wire, status, body).catch(() => res.destroy());
    case 'trickle':
      return trickle(wire, status, body);
    case 'wrong-content-type': {
      const type = pick(prng, CONTENT_TYPES);
      return send(wire, status, { body, variant: `content type ${String(type)}` }, type);
    }
    case 'html-error': {
      const at = pick(prng, HTML_STATUSES);
      const page = { body: bodies.htmlPage(at), variant: `HTML ${at}` };
      return send(wire, at, page, 'text/html', prng.next() < 0.3 ? { 'retry-after': '5' } : {});
    }
    case 'error-body': {
      const at = status >= 200 && status < 300 ? status : 200;
      const text = pick(prng, bodies.ERROR_BODIES);
      return json({ body: text, variant: `${at} ${text || '(empty)'}` }, at);
    }
    case 'unknown-status': {
      const at = pick(prng, UNKNOWN_STATUSES);
      return json({ body, variant: `status ${at}` }, at);
    }
    case 'unknown-enum':
      return json(bodies.unknownEnum(body, prng));
    case 'missing-field':
      return json(bodies.missingField(body, prng));
    case 'extra-field':
      return json(bodies.extraField(body, prng));
    case 'date-format':
      return json(bodies.dateFormat(body, prng));
    case 'negative-id':
      return json(bodies.badId(body, prng, 'negative'));
    case 'huge-id':
      return json(bodies.badId(body, prng, 'huge'));
    case 'changing-id':
      return json(bodies.changingId(body, prng));
    case 'reset-mid-body':
      return reset(wire, status, body);
    case 'echo-request':
      return json(bodies.echo(armed.seen, status, prng), status);
    case 'retry-after': {
      const value = pick(prng, RETRY_AFTER);
      const text = {
        body: '{"detail":"Too Many Requests"}',
        variant: `Retry-After ${JSON.stringify(value)}`,
      };
      return json(text, status, { 'retry-after': value });
    }
  }
}

/** A whole answer with the given body and content type (`null`: none). */
function send(
  wire: Wire,
  status: number,
  changed: Changed,
  contentType: string | null,
  headers: Readonly<Record<string, string>> = {},
): void {
  const { res, record } = wire;
  record.variant = changed.variant;
  record.status = status;
  if (res.destroyed) return;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (contentType !== null) res.setHeader('content-type', contentType);
  res.setHeader('content-length', Buffer.byteLength(changed.body));
  res.writeHead(status);
  res.end(changed.body);
}
