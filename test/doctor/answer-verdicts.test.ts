/**
 * Verdicts on what the supplier answers, without a server: the product's schemas, content
 * paging, dates the product reads, 422 bodies, array encodings, and the fields the product does
 * not read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  arrayEncodingVerdict,
  availabilityDatesVerdict,
  issueLine,
  pagingVerdict,
  schemaVerdict,
  validationVerdict,
} from '../../src/doctor/answer-verdicts';
import { arrayProbe, looseListIds } from '../../src/doctor/read-checks';
import { unknownFields } from '../../src/doctor/unknown-fields';
import { AvailabilityResponse } from '../../src/hotel-api/availability';
import { classifyResponse, contractError } from '../../src/hotel-api';

const unprocessable = (detail: unknown) =>
  classifyResponse({
    endpoint: '/properties/availability',
    method: 'GET',
    statusCode: 422,
    headers: {},
    body: { detail },
  });

describe('schemas', () => {
  it('a parsed answer is ok, its unknown fields listed as information', () => {
    const r = schemaVerdict({
      name: 'static-lists',
      outcome: { ok: true, value: { n: 3 } },
      summary: (v) => `${v.n} lists`,
      breaks: 'x',
      unknown: ['extra'],
    });
    assert.equal(r.verdict, 'ok');
    assert.match(r.evidence, /3 lists/);
    assert.deepEqual(r.info, ['fields the product does not read: extra']);
  });

  it('a refused answer fails with one line per field, whatever the array index', () => {
    const parsed = AvailabilityResponse.safeParse({
      properties: [{ property_id: '1', status: 'A', rooms: [{ id: 'a' }, { id: 'b' }] }],
    });
    assert.equal(parsed.success, false);
    const error = contractError({
      endpoint: '/properties/availability',
      method: 'GET',
      statusCode: 200,
      issues: parsed.error?.issues ?? [],
      reason: 'does not match the schema',
    });
    const r = schemaVerdict({
      name: 'availability',
      outcome: { ok: false, error },
      summary: () => '',
      breaks: 'no room can be searched',
      unknown: [],
    });
    assert.equal(r.verdict, 'fail');
    assert.equal(r.evidence.match(/properties\[\]\.rooms\[\]\.room_name/g)?.length, 1);
  });

  it('issue lines read as paths', () => {
    assert.equal(
      issueLine({ path: ['properties', 0, 'rooms', 3, 'room_name'], message: 'Invalid input: x' }),
      'properties[].rooms[].room_name: x',
    );
    assert.equal(issueLine({ path: [], message: 'm' }), '(root): m');
  });

  it('unknown fields are the ones no schema names, once each', () => {
    const body = {
      properties: [{ property_id: '1', status: 'A', rooms: [{ name: 'x' }, { name: 'y' }], x: 1 }],
      warnings: [],
      extra: true,
    };
    assert.deepEqual(unknownFields(AvailabilityResponse, body), [
      'properties[].rooms[].name',
      'properties[].x',
      'extra',
    ]);
  });
});

describe('content list paging', () => {
  it('is ok when total counts properties and pages hold 200', () => {
    const r = pagingVerdict({
      country: 'IT',
      total: 470,
      pages: [
        { page: 1, count: 200 },
        { page: 3, count: 70 },
        { page: 4, count: 0 },
      ],
    });
    assert.equal(r.verdict, 'ok');
  });

  it('fails when total reads as a number of pages', () => {
    const r = pagingVerdict({
      country: 'IT',
      total: 3,
      pages: [
        { page: 1, count: 200 },
        { page: 2, count: 200 },
      ],
    });
    assert.equal(r.verdict, 'fail');
    assert.match(r.evidence, /expected 3/);
  });

  it('warns on an empty country', () => {
    assert.equal(
      pagingVerdict({ country: 'VA', total: 0, pages: [{ page: 1, count: 0 }] }).verdict,
      'warn',
    );
  });

  it('property ids are read loosely from an answer the schema refused', () => {
    assert.deepEqual(
      looseListIds({ total: '3', properties: [{ id: 1 }, { id: 'x' }, { id: 2 }] }),
      [1, 2],
    );
    assert.deepEqual(looseListIds(undefined), []);
  });
});

describe('dates', () => {
  it('ISO instants with an offset and plain dates are read', () => {
    const r = availabilityDatesVerdict({
      refundableRooms: 2,
      fields: [
        { at: 'rooms[0].cancel_penalties', value: '2027-05-08T12:00:00Z' },
        { at: 'rooms[1].cancel_penalties', value: '2027-05-08' },
      ],
    });
    assert.equal(r.verdict, 'ok');
  });

  it('European dates warn, naming where they were', () => {
    const r = availabilityDatesVerdict({
      refundableRooms: 1,
      fields: [{ at: 'rooms[0].cancel_penalties', value: '08/05/2027 12:00' }],
    });
    assert.equal(r.verdict, 'warn');
    assert.match(r.evidence, /rooms\[0\]\.cancel_penalties = "08\/05\/2027 12:00"/);
  });

  it('refundable rooms without a deadline warn', () => {
    assert.equal(availabilityDatesVerdict({ refundableRooms: 2, fields: [] }).verdict, 'warn');
  });
});

describe('validation errors', () => {
  it('a 422 listing the field is ok', () => {
    const e = unprocessable([{ type: 'date', loc: ['query', 'checkin'], msg: 'bad date' }]);
    assert.equal(
      validationVerdict({ statusCode: 422, classified: e, field: 'checkin' }).verdict,
      'ok',
    );
  });

  it('a 422 whose detail is a string warns: still VALIDATION, but without a field', () => {
    const e = unprocessable('query.checkin: bad date');
    const r = validationVerdict({ statusCode: 422, classified: e, field: 'checkin' });
    assert.equal(r.verdict, 'warn');
    assert.match(r.evidence, /detail is a string/);
  });

  it('a rejection answered with another status fails', () => {
    const e = classifyResponse({
      endpoint: '/properties/availability',
      method: 'GET',
      statusCode: 500,
      headers: {},
      body: undefined,
    });
    assert.equal(
      validationVerdict({ statusCode: 500, classified: e, field: 'checkin' }).verdict,
      'fail',
    );
  });

  it('an invalid request accepted warns', () => {
    assert.equal(validationVerdict({ statusCode: 200, field: 'checkin' }).verdict, 'warn');
  });
});

describe('array encoding', () => {
  const covering = (...ids: string[]) =>
    arrayProbe(200, {
      properties: ids.map((id) => ({ property_id: id, rooms: [{ number_of_rooms: 2 }] })),
      warnings: [],
    });

  it('is ok when repeated keys reach the supplier whole', () => {
    const r = arrayEncodingVerdict({
      propertyIds: ['1', '2'],
      rooms: 2,
      repeated: covering('1', '2'),
      comma: { statusCode: 422, covered: [] },
    });
    assert.equal(r.verdict, 'ok');
  });

  it('fails when only comma-separated arrays are read, saying so', () => {
    const r = arrayEncodingVerdict({
      propertyIds: ['1', '2'],
      rooms: 2,
      repeated: covering('2'),
      comma: covering('1', '2'),
    });
    assert.equal(r.verdict, 'fail');
    assert.ok(r.verdict === 'fail' && /comma-separated arrays only/.test(r.breaks));
  });

  it('the probe counts properties even when a room field is renamed', () => {
    const p = arrayProbe(200, {
      properties: [{ property_id: '1', rooms: [{ name: 'x', number_of_rooms: 1 }] }],
      warnings: ['9'],
    });
    assert.deepEqual(p.covered, ['1', '9']);
    assert.equal(p.roomsPerOption, 1);
  });
});
