import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  AvailabilityQuery,
  BookingRequestBody,
  HotelApiClient,
  HotelApiError,
  IsoDate,
  Occupancy,
} from '../../src/hotel-api';
import type { BookingRequestBody as BookingBody } from '../../src/hotel-api';
import { BOOKING_REQUEST, startServer, supplier, testConfig } from './fake-supplier';
import type { TestServer } from './fake-supplier';

const AVAIL = {
  checkin: '2030-01-01',
  checkout: '2030-01-03',
  propertyIds: [1],
  occupancy: ['2'],
};

/** A booking body with one part replaced (for invalid cases the types do not allow). */
function body(patch: Record<string, unknown>): BookingBody {
  return { ...BOOKING_REQUEST, ...patch } as unknown as BookingBody;
}

interface Case {
  readonly name: string;
  readonly call: (c: HotelApiClient) => Promise<unknown>;
  /** The field the error must name, and a fragment of its message. */
  readonly field: string;
  readonly message: RegExp;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

const invalid: Case[] = [
  // availability
  {
    name: 'more than 200 property ids',
    call: (c) => c.availability({ ...AVAIL, propertyIds: ids(201) }),
    field: 'property_id',
    message: /at most 200/,
  },
  {
    name: 'no property id',
    call: (c) => c.availability({ ...AVAIL, propertyIds: [] }),
    field: 'property_id',
    message: /at least one/,
  },
  {
    name: 'a fractional property id',
    call: (c) => c.availability({ ...AVAIL, propertyIds: [1, 1.5] }),
    field: 'property_id.1',
    message: /integer/,
  },
  {
    name: 'a property id given as a string',
    call: (c) => c.availability({ ...AVAIL, propertyIds: ['7' as unknown as number] }),
    field: 'property_id.0',
    message: /number/,
  },
  {
    name: 'an occupancy without adults',
    call: (c) => c.availability({ ...AVAIL, occupancy: ['0'] }),
    field: 'occupancy.0',
    message: /at least 1 adult/,
  },
  {
    name: 'a child aged 18',
    call: (c) => c.availability({ ...AVAIL, occupancy: ['2', '2-5,18'] }),
    field: 'occupancy.1',
    message: /0-17/,
  },
  {
    name: 'a malformed occupancy',
    call: (c) => c.availability({ ...AVAIL, occupancy: ['2-'] }),
    field: 'occupancy.0',
    message: /must look like/,
  },
  {
    name: 'an occupancy with spaces',
    call: (c) => c.availability({ ...AVAIL, occupancy: ['2 - 5'] }),
    field: 'occupancy.0',
    message: /must look like/,
  },
  {
    name: 'no occupancy',
    call: (c) => c.availability({ ...AVAIL, occupancy: [] }),
    field: 'occupancy',
    message: /at least one room/,
  },
  {
    name: 'a date that does not exist',
    call: (c) => c.availability({ ...AVAIL, checkin: '2029-02-29' }),
    field: 'checkin',
    message: /real calendar date/,
  },
  {
    name: 'a date in another format',
    call: (c) => c.availability({ ...AVAIL, checkout: '03/01/2030' }),
    field: 'checkout',
    message: /YYYY-MM-DD/,
  },
  {
    name: 'a checkout equal to the checkin',
    call: (c) => c.availability({ ...AVAIL, checkout: AVAIL.checkin }),
    field: 'checkout',
    message: /after checkin/,
  },
  {
    name: 'a checkout before the checkin',
    call: (c) => c.availability({ ...AVAIL, checkout: '2029-12-31' }),
    field: 'checkout',
    message: /after checkin/,
  },
  // property list and detail
  {
    name: 'a lower-case country code',
    call: (c) => c.listProperties({ countryCode: 'it' }),
    field: 'country_code',
    message: /upper-case/,
  },
  {
    name: 'a three-letter country code',
    call: (c) => c.listProperties({ countryCode: 'ITA' }),
    field: 'country_code',
    message: /2 upper-case/,
  },
  {
    name: 'an unsupported language',
    call: (c) => c.listProperties({ countryCode: 'IT', languageCode: 'fr' as 'en' }),
    field: 'language_code',
    message: /en|it/,
  },
  {
    name: 'page 0',
    call: (c) => c.listProperties({ countryCode: 'IT', page: 0 }),
    field: 'page',
    message: /at least 1/,
  },
  {
    name: 'a fractional page',
    call: (c) => c.listProperties({ countryCode: 'IT', page: 1.5 }),
    field: 'page',
    message: /integer/,
  },
  {
    name: 'hotel id 0',
    call: (c) => c.getProperty({ hotelId: 0 }),
    field: 'hotel_id',
    message: /positive/,
  },
  {
    name: 'a detail language other than en/it',
    call: (c) => c.getProperty({ hotelId: 1, languageCode: 'de' as 'en' }),
    field: 'language_code',
    message: /en|it/,
  },
  {
    name: 'a reference list language other than en/it',
    call: (c) => c.staticReferenceList({ language: 'EN' as 'en' }),
    field: 'language',
    message: /en|it/,
  },
  // price check
  {
    name: 'an empty option id',
    call: (c) => c.priceCheck({ optionId: '' }),
    field: 'option_id',
    message: /must not be empty/,
  },
  {
    name: 'a blank option id',
    call: (c) => c.priceCheck({ optionId: '   ' }),
    field: 'option_id',
    message: /must not be empty/,
  },
  // booking
  {
    name: 'an empty booking option id',
    call: (c) => c.createBooking({ optionId: '', body: BOOKING_REQUEST }),
    field: 'option_id',
    message: /must not be empty/,
  },
  {
    name: 'no rooms',
    call: (c) => c.createBooking({ optionId: 't', body: body({ room_detail: [] }) }),
    field: 'room_detail',
    message: /at least one room/,
  },
  {
    name: 'a room without a lead first name',
    call: (c) =>
      c.createBooking({ optionId: 't', body: body({ room_detail: [{ lead_last_name: 'L' }] }) }),
    field: 'room_detail.0.lead_first_name',
    message: /^required$/,
  },
  {
    name: 'a blank lead last name',
    call: (c) =>
      c.createBooking({
        optionId: 't',
        body: body({
          room_detail: [
            { lead_first_name: 'A', lead_last_name: 'B' },
            { lead_first_name: 'A', lead_last_name: ' ' },
          ],
        }),
      }),
    field: 'room_detail.1.lead_last_name',
    message: /must not be empty/,
  },
  {
    name: 'a missing phone number',
    call: (c) => c.createBooking({ optionId: 't', body: body({ phone_number: undefined }) }),
    field: 'phone_number',
    message: /^required$/,
  },
  {
    name: 'a malformed e-mail',
    call: (c) => c.createBooking({ optionId: 't', body: body({ email: 'ada-at-example' }) }),
    field: 'email',
    message: /e-mail/,
  },
  {
    name: 'an eleventh custom field',
    call: (c) =>
      c.createBooking({ optionId: 't', body: body({ custom_fields: { custom_field_11: 'x' } }) }),
    field: 'custom_fields.custom_field_11',
    message: /unknown field/,
  },
  {
    name: 'a custom field with another name',
    call: (c) => c.createBooking({ optionId: 't', body: body({ custom_fields: { order: 'x' } }) }),
    field: 'custom_fields.order',
    message: /unknown field/,
  },
  {
    name: 'a custom field that is not a string',
    call: (c) =>
      c.createBooking({ optionId: 't', body: body({ custom_fields: { custom_field_1: 5 } }) }),
    field: 'custom_fields.custom_field_1',
    message: /string/,
  },
  {
    name: 'an unknown body field',
    call: (c) => c.createBooking({ optionId: 't', body: body({ room_details: [] }) }),
    field: 'room_details',
    message: /unknown field/,
  },
  // retrieve and cancel
  {
    name: 'booking id 0',
    call: (c) => c.retrieveBooking({ bookingId: 0 }),
    field: 'booking_id',
    message: /positive/,
  },
  {
    name: 'a fractional booking id',
    call: (c) => c.retrieveBooking({ bookingId: 2.5 }),
    field: 'booking_id',
    message: /integer/,
  },
  {
    name: 'a negative booking id to cancel',
    call: (c) => c.cancelBooking({ bookingId: -4 }),
    field: 'booking_id',
    message: /positive/,
  },
  {
    name: 'a booking id that is NaN',
    call: (c) => c.cancelBooking({ bookingId: Number.NaN }),
    field: 'booking_id',
    message: /number/,
  },
  // call options
  {
    name: 'a zero timeout',
    call: (c) => c.priceCheck({ optionId: 'a' }, { timeoutMs: 0 }),
    field: 'timeoutMs',
    message: /positive/,
  },
];

describe('Validation before sending', () => {
  let server: TestServer;
  let client: HotelApiClient;
  before(async () => {
    server = await startServer(supplier);
    client = new HotelApiClient(testConfig(server.baseUrl));
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  for (const c of invalid) {
    it(`rejects ${c.name}, naming ${c.field}, and sends nothing`, async () => {
      let err: unknown;
      try {
        await c.call(client);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof HotelApiError, `expected INVALID_REQUEST, got ${String(err)}`);
      assert.equal(err.code, 'INVALID_REQUEST');
      assert.equal(err.retryable, false);
      assert.equal(err.ambiguous, false);
      assert.equal(err.requestSent, false);
      const hit = err.fieldErrors?.find((f) => f.field === c.field);
      assert.ok(hit, `no error for ${c.field} in ${JSON.stringify(err.fieldErrors)}`);
      assert.match(hit.message, c.message);
      assert.ok(err.message.includes(`${c.field}: ${hit.message}`), err.message);
      assert.equal(server.received.length, 0, 'nothing reached the server');
    });
  }

  it('names the field exactly as room_detail.0.lead_first_name: required', async () => {
    await assert.rejects(
      client.createBooking({
        optionId: 't',
        body: body({ room_detail: [{ lead_last_name: 'L' }] }),
      }),
      (err: HotelApiError) => err.message.includes('room_detail.0.lead_first_name: required'),
    );
  });

  it('never quotes guest data in validation messages', async () => {
    const err = await client
      .createBooking({ optionId: 't', body: body({ email: 'ada.secret-name@@example' }) })
      .then(
        () => assert.fail('expected INVALID_REQUEST'),
        (e: unknown) => e as HotelApiError,
      );
    assert.ok(!err.message.includes('secret-name'));
  });

  it('accepts the edge values the seed allows', async () => {
    await client.availability({
      checkin: '2028-02-28',
      checkout: '2028-02-29',
      propertyIds: ids(200),
      occupancy: ['1', '2-0,17', '3-0'],
    });
    await client.listProperties({ countryCode: 'IT', page: 1, languageCode: 'en' });
    const tenFields = Object.fromEntries(ids(10).map((i) => [`custom_field_${i}`, `v${i}`]));
    await client.createBooking({
      optionId: 't',
      body: body({
        email: null,
        custom_fields: tenFields,
        room_detail: [{ lead_first_name: 'A', lead_last_name: 'B' }],
      }),
    });
    await client.createBooking({
      optionId: 't',
      body: body({ email: undefined, custom_fields: undefined }),
    });
    assert.equal(server.received.length, 4);
    assert.equal(
      server.received[0]?.rawQuery.split('&').filter((p) => p.startsWith('property_id=')).length,
      200,
    );
  });
});

describe('Field schemas', () => {
  it('accepts every well-formed occupancy and rejects any child older than 17', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 17 }), { maxLength: 5 }),
        (adults, ages) => {
          const s = ages.length === 0 ? `${adults}` : `${adults}-${ages.join(',')}`;
          return Occupancy.safeParse(s).success;
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 17 }), { maxLength: 3 }),
        fc.integer({ min: 18, max: 99 }),
        (adults, ages, old) =>
          !Occupancy.safeParse(`${adults}-${[...ages, old].join(',')}`).success,
      ),
    );
  });

  it('accepts exactly the dates the calendar has', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
        (d) => IsoDate.safeParse(d.toISOString().slice(0, 10)).success,
      ),
    );
    for (const bad of ['2025-02-29', '2025-04-31', '2025-13-01', '2025-00-10', '2025-1-01']) {
      assert.equal(IsoDate.safeParse(bad).success, false, bad);
    }
  });

  it('exports the wire schemas for the simulator and other callers', () => {
    assert.equal(
      AvailabilityQuery.safeParse({
        checkin: '2030-01-01',
        checkout: '2030-01-02',
        property_id: [1],
        occupancy: ['2'],
      }).success,
      true,
    );
    assert.equal(BookingRequestBody.safeParse(BOOKING_REQUEST).success, true);
  });
});
