/** The simulator's deviations as pure rewrites of answers and requests. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEVIATIONS,
  DEVIATION_NAMES,
  deviationParam,
  europeanDate,
  extraLatencyMs,
  initialSkewMs,
  redirectLocation,
  rewriteBody,
  rewriteQuery,
} from '../../tools/simulator/deviations';
import { buildSimulator } from '../../tools/simulator';

describe('simulator deviations', () => {
  it('are all documented, and none is on by default', () => {
    assert.deepEqual(
      DEVIATIONS.map((d) => d.name),
      [...DEVIATION_NAMES],
    );
    const body = JSON.stringify({ properties: [{ rooms: [{ room_name: 'A' }] }], warnings: [] });
    assert.equal(rewriteBody({}, 'availability', 200, body), body);
    assert.equal(initialSkewMs({}), 0);
    assert.equal(redirectLocation({}, '/properties/content/', ''), undefined);
  });

  it('rename, retype and reformat fields of 2xx answers only', () => {
    const rooms = JSON.stringify({
      properties: [{ rooms: [{ room_name: 'A', cancel_penalties: '2027-05-08T12:00:00Z' }] }],
    });
    assert.deepEqual(
      JSON.parse(
        rewriteBody({ 'renamed-field': true, 'date-format': true }, 'availability', 200, rooms),
      ),
      { properties: [{ rooms: [{ name: 'A', cancel_penalties: '08/05/2027 12:00' }] }] },
    );
    assert.equal(rewriteBody({ 'renamed-field': true }, 'availability', 422, rooms), rooms);
    const list = JSON.stringify({ total: 3, properties: [] });
    assert.equal(
      JSON.parse(rewriteBody({ 'retyped-field': true }, 'content-list', 200, list)).total,
      '3',
    );
    assert.equal(europeanDate('2027-05-10'), '10/05/2027');
  });

  it('turn a 422 list into one string', () => {
    const body = JSON.stringify({
      detail: [{ type: 'missing', loc: ['query', 'checkin'], msg: 'Field required' }],
    });
    assert.deepEqual(
      JSON.parse(rewriteBody({ 'detail-string': true }, 'availability', 422, body)),
      {
        detail: 'query.checkin: Field required',
      },
    );
  });

  it('read property ids comma-separated only', () => {
    const q = rewriteQuery(
      { 'comma-arrays': true },
      'availability',
      new URLSearchParams('property_id=1&property_id=2,3&occupancy=2'),
    );
    assert.deepEqual(q.getAll('property_id'), ['2', '3']);
    assert.deepEqual(q.getAll('occupancy'), ['2']);
  });

  it('take their parameter or its default', () => {
    assert.equal(deviationParam({ 'clock-offset': true }, 'clock-offset'), 600);
    assert.equal(initialSkewMs({ 'clock-offset': -30 }), -30_000);
    assert.equal(extraLatencyMs({ 'slow-endpoint': 250 }, 'content-detail'), 250);
    assert.equal(extraLatencyMs({ 'slow-endpoint': 250 }, 'availability'), 0);
  });

  it('are validated with the other simulator options', () => {
    assert.throws(
      () => buildSimulator({ deviations: { 'no-such': true } as never }),
      /invalid simulator options/,
    );
  });
});
