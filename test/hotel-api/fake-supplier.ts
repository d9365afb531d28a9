/**
 * Small real HTTP servers for the hotel API client tests. The simulator (tools/simulator) is the
 * faithful supplier; these exist for the odd cases it should not produce on purpose (resets after
 * the write, HTML, truncated JSON, huge bodies) and to see exactly what went on the wire.
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { HotelApiConfig } from '../../src/hotel-api/client';
import { parseAuthorization, verifySignature } from '../../src/hotel-api/signing';
import type { VerifyResult } from '../../src/hotel-api/signing';

export const TEST_KEY = 'test-key-123';
/** Distinctive so a leak is easy to find in any output. */
export const TEST_SECRET = 'SuperSecret-do-not-leak-42';

/** One request as the server saw it. */
export interface Received {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  /** The raw query string exactly as sent (no leading `?`). */
  readonly rawQuery: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** The signature check against TEST_SECRET at the server's clock. */
  readonly auth: VerifyResult | 'missing' | 'malformed';
  readonly timestamp?: number;
}

export type Responder = (
  received: Received,
  res: ServerResponse,
  req: IncomingMessage,
) => void | Promise<void>;

export interface TestServer {
  readonly baseUrl: string;
  readonly port: number;
  readonly received: Received[];
  /** TCP connections accepted so far (keep-alive reuse shows as 1). */
  connections(): number;
  close(): Promise<void>;
}

function checkAuth(
  header: string | undefined,
  nowMs: number,
): Pick<Received, 'auth' | 'timestamp'> {
  if (header === undefined) return { auth: 'missing' };
  const parsed = parseAuthorization(header);
  if (parsed === undefined) return { auth: 'malformed' };
  return { auth: verifySignature(parsed, TEST_SECRET, nowMs), timestamp: parsed.timestamp };
}

/**
 * Starts a server on 127.0.0.1, port 0. Each request is read in full, recorded, then handed to
 * `respond`. `serverNow` is the server's clock (for skew tests).
 */
export async function startServer(
  respond: Responder,
  options: { serverNow?: () => number } = {},
): Promise<TestServer> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const serverNow = options.serverNow ?? Date.now;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const rec: Received = {
        method: req.method ?? '',
        path: q === -1 ? url : url.slice(0, q),
        rawQuery: q === -1 ? '' : url.slice(q + 1),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        ...checkAuth(req.headers.authorization, serverNow()),
      };
      received.push(rec);
      Promise.resolve(respond(rec, res, req)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    received,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** A config pointing at a test server, with short timeouts. */
export function testConfig(
  baseUrl: string,
  overrides: Partial<Omit<HotelApiConfig, 'timeouts'>> & {
    timeouts?: Partial<HotelApiConfig['timeouts']>;
  } = {},
): HotelApiConfig {
  const { timeouts, ...rest } = overrides;
  return {
    baseUrl,
    key: TEST_KEY,
    secret: TEST_SECRET,
    clockCorrection: true,
    maxConnections: 4,
    ...rest,
    timeouts: { bookingMs: 5_000, readMs: 5_000, searchMs: 5_000, ...timeouts },
  };
}

// --- fixtures: what the seed documents, plus an extra field each to prove tolerance ------------

export const PRICE = {
  without_tax: '100.00',
  taxes: '10.00',
  sales_taxes: '0.00',
  net: '110.00',
  currency: 'EUR',
};

export const AVAILABILITY_BODY = {
  properties: [
    {
      property_id: '1',
      status: 'AVAILABLE',
      rooms: [
        {
          id: 'opt-1',
          number_of_rooms: 1,
          occupancy_of_rooms: [{ adults: 2, children: [5, 7] }],
          room_name: 'Double',
          status: 'AVAILABLE',
          refundable: true,
          cancel_penalties: '2030-01-01T12:00:00Z',
          package: false,
          corporate: false,
          bed_groups: [{ id: 'bg1', description: 'Queen bed' }],
          price: PRICE,
          treatments: [{ id: 'BB', name: 'Bed and breakfast' }],
          supplier_extra: 'kept',
        },
      ],
    },
  ],
  warnings: ['2'],
};

export const PROPERTY_LIST_BODY = {
  total: 401,
  properties: [{ id: 1, name: 'Hotel Uno', city: 'Roma' }],
};

export const PROPERTY_DETAIL_BODY = {
  id: 1,
  name: 'Hotel Uno',
  stars: 4,
  pic: null,
  city: 'Roma',
  address: 'Via Roma 1',
  state_code: null,
  state_name: null,
  zipcode: '00100',
  category: 'Hotel',
  phone_nr: null,
  coordinates: { latitude: 41.9, longitude: 12.5 },
  country: { code: 'IT', name: 'Italy' },
  guest_rating_count: 120,
  guest_rating_overall: 8.7,
  descriptions: { headline: 'Central' },
  images: [],
};

const REF = [{ id: '1', name: 'x' }];
export const STATIC_BODY = {
  categories: REF,
  treatment_categories: REF,
  room_amenities: REF,
  property_amenities: REF,
  hotel_attributes: REF,
};

export const PRICE_CHECK_BODY = { status: 'AVAILABLE', price: null, booking_id: 'tok-1' };

export const BOOKING_BODY = { status: 'CONFIRMED', booking_id: 4242 };

export const RETRIEVE_BODY = {
  booking_id: 4242,
  status: 'CONFIRMED',
  guest_contact_number: '+39 123',
  email: 'a@example.com',
  check_in: '2030-01-01',
  check_out: '2030-01-03',
  cancel_policy: true,
  penalty_date: null,
  price: { total_amount: '220.00', currency: 'EUR', payment_status: 'PAID' },
  package: false,
  created_at: '2029-12-01T10:00:00Z',
  custom_fields: { custom_field_10: 'order-1' },
  rooms: [
    {
      room_id: 1,
      lead_name: 'Ada',
      lead_last_name: 'Lovelace',
      special_requests: '',
      room_name: 'Double',
      bed_type: 'Queen',
      treatments: [{ id: 'BB', name: null }],
      number_of_adults: 2,
      child_ages: [],
    },
  ],
};

/** A valid booking body. */
export const BOOKING_REQUEST = {
  room_detail: [{ lead_first_name: 'Ada', lead_last_name: 'Lovelace', notes: null }],
  phone_number_prefix: '+39',
  phone_number: '123456',
  email: 'ada@example.com',
  custom_fields: { custom_field_10: 'order-1' },
};

/** Answers every documented endpoint with its fixture, 401 when the signature does not verify. */
export function supplier(rec: Received, res: ServerResponse): void {
  if (rec.auth !== 'ok') {
    sendJson(res, 401, { detail: 'Invalid API credentials' });
    return;
  }
  const route = `${rec.method} ${rec.path}`;
  switch (route) {
    case 'GET /api/v1/properties/availability':
      return sendJson(res, 200, AVAILABILITY_BODY);
    case 'GET /api/v1/properties/content/':
      return sendJson(res, 200, PROPERTY_LIST_BODY);
    case 'GET /api/v1/static_content_reference_list':
      return sendJson(res, 200, STATIC_BODY);
    case 'GET /api/v1/price-check':
      return sendJson(res, 200, PRICE_CHECK_BODY);
    case 'POST /api/v1/booking':
      return sendJson(res, 201, BOOKING_BODY);
    case 'GET /api/v1/retrieve':
      return sendJson(res, 200, RETRIEVE_BODY);
    case 'DELETE /api/v1/cancel':
      res.writeHead(204);
      res.end();
      return;
    default:
      if (rec.method === 'GET' && rec.path.startsWith('/api/v1/properties/content/')) {
        return sendJson(res, 200, PROPERTY_DETAIL_BODY);
      }
      sendJson(res, 404, { detail: 'Not Found' });
  }
}
