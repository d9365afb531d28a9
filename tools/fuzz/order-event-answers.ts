/**
 * The answers of the `order-event-endpoints` surface's hostile order system to an event's POST,
 * seeded, and what the docs give for each (docs/order-events.md, "What counts as an answer").
 */
import fc from 'fast-check';

export type Answer =
  | { k: 'final'; status: number; head: string; interim?: number }
  | { k: 'redirect'; status: number; to: string }
  | { k: 'huge'; status: number; mb: number; chunked: boolean }
  | { k: 'trickle'; status: number; head: boolean }
  | { k: 'hang' }
  | { k: 'cut'; at: 'before' | 'interim' | 'head' | 'body'; reset: boolean; status: number }
  | { k: 'garbage'; bytes: string }
  | { k: 'tls'; how: 'untrusted' | 'reset' | 'plain' }
  | { k: 'refused' };

const is2xx = (status: number) => status >= 200 && status <= 299;

/** What the docs give: delivered, a failed attempt naming the status, or no answer. */
export function expected(a: Answer): 'delivered' | number | 'no answer' {
  // A switch of protocols nobody asked for: what follows it is not HTTP.
  if (a.k === 'final' && a.interim === 101) return 101;
  const headCame =
    a.k === 'final' ||
    a.k === 'huge' ||
    a.k === 'redirect' ||
    (a.k === 'trickle' && !a.head) ||
    (a.k === 'cut' && a.at === 'body');
  if (!headCame) return 'no answer';
  return is2xx(a.status) ? 'delivered' : a.status;
}

const STATUSES = [200, 201, 202, 204, 206, 299, 300, 301, 302, 304, 307, 400, 401, 403, 404];
const MORE = [408, 410, 413, 422, 429, 499, 500, 501, 502, 503, 504, 599, 600, 700, 999];
const status = fc.oneof(fc.constantFrom(...STATUSES, ...MORE), fc.integer({ min: 200, max: 999 }));
const HEADS = [
  '',
  'retry-after: garbage\r\n',
  'retry-after: -1\r\n',
  'retry-after: 99999999999999999999999\r\n',
  'retry-after: Wed, 99 Foo 1970 99:99:99 GMT\r\n',
  'x-a: 1\r\nx-a: 2\r\nset-cookie: a=b\r\n',
  'content-type: text/html; charset=ünïcödé\r\n',
  `x-long: ${'a'.repeat(8000)}\r\n`,
  'connection: close\r\n',
  'keep-alive: timeout=0\r\n',
  'location: http://127.0.0.1:1/\r\n',
];
/** Not HTTP: no status, a bad one, a NUL in a header, bad lengths, a head over every limit. */
const GARBAGE = [
  'garbage\r\n\r\n',
  'HTTP/1.1 abc OK\r\n\r\n',
  'HTTP/1.1 20 OK\r\n\r\n',
  'HTTP/1.1 2000 OK\r\n\r\n',
  'HTTP/1.1 200 OK\r\nx\u0000y: z\r\n\r\n',
  'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n',
  'HTTP/1.1 204 OK\r\ncontent-length: 0\r\ncontent-length: 5\r\n\r\n',
  `HTTP/1.1 200 OK\r\nx: ${'a'.repeat(100_000)}\r\n\r\n`,
  `HTTP/1.1 200 OK\r\n${'x: a\r\n'.repeat(20_000)}\r\n`,
];
const REDIRECT_TO = ['/redirected', '{here}/redirected', 'http://example.invalid/x', '{self}'];

const k = <K extends Answer['k']>(kind: K) => fc.constant(kind);

/** Answers given at once (the whole deliveries use only these). */
export const quickAnswer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ k: k('final'), status, head: fc.constantFrom(...HEADS) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: k('final'),
      status,
      head: fc.constant(''),
      interim: fc.constantFrom(100, 101, 102, 103, 199),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: k('redirect'),
      status: fc.constantFrom(301, 302, 303, 307, 308),
      to: fc.constantFrom(...REDIRECT_TO),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: k('cut'),
      at: fc.constantFrom('before' as const, 'interim' as const, 'head' as const, 'body' as const),
      reset: fc.boolean(),
      status,
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: k('garbage'), bytes: fc.constantFrom(...GARBAGE) }) },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((b) => ({ k: 'garbage' as const, bytes: `\0${Buffer.from(b).toString('latin1')}` })),
  },
);

/** Every answer: the quick ones, huge ones (10-64 MB), trickles, silence, a
 * connection refused, a TLS handshake refused. */
export const anyAnswer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 14, arbitrary: quickAnswer },
  {
    weight: 1,
    arbitrary: fc.record({
      k: k('huge'),
      status: fc.constantFrom(200, 204, 302, 500),
      mb: fc.integer({ min: 10, max: 64 }),
      chunked: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: k('trickle'), status, head: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constantFrom({ k: 'hang' as const }, { k: 'refused' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: k('tls'),
      how: fc.constantFrom('untrusted' as const, 'reset' as const, 'plain' as const),
    }),
  },
);
