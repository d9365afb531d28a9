/** The doctor's flags: defaults, and every problem named by its flag. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { doctorOptions, type DoctorFlags } from '../../src/doctor/doctor-input';

const input = (flags: DoctorFlags) => ({
  flags,
  today: '2027-01-01',
  orderIdField: 'custom_field_10' as const,
  maxCallsPerSecond: 0,
  nowMs: 1_000,
});

describe('doctor flags', () => {
  it('default to a two-night stay for two adults 60 days ahead, in Italy, without booking', () => {
    const { options, issues } = doctorOptions(input({}));
    assert.deepEqual(issues, []);
    assert.deepEqual(options?.search, {
      checkin: '2027-03-02',
      checkout: '2027-03-04',
      occupancy: ['2'],
    });
    assert.equal(options?.country, 'IT');
    assert.equal(options?.book, undefined);
    assert.equal(options?.samples, 3);
  });

  it('book only a stay chosen on purpose, with an order id in the configured field', () => {
    const refused = doctorOptions(input({ book: true }));
    assert.equal(refused.options, undefined);
    assert.equal(refused.issues[0]?.field, '--book');
    const { options } = doctorOptions(
      input({ book: true, property: '1001', checkin: '2027-05-10' }),
    );
    assert.deepEqual(options?.book, { orderId: 'doctor-rs', orderIdField: 'custom_field_10' });
    assert.equal(options?.search.checkout, '2027-05-12');
    const byOption = doctorOptions(input({ book: true, option: 'opt-1', orderId: 'o-1' }));
    assert.deepEqual(byOption.options?.book, {
      optionId: 'opt-1',
      orderId: 'o-1',
      orderIdField: 'custom_field_10',
    });
  });

  it('name each bad flag', () => {
    const { options, issues } = doctorOptions(
      input({
        country: 'it',
        property: 'x',
        checkin: '2027-13-01',
        occupancy: ['two'],
        samples: '0',
        option: 'o',
      }),
    );
    assert.equal(options, undefined);
    const fields = issues.map((i) => i.field);
    for (const f of [
      '--country',
      '--property',
      '--checkin',
      '--occupancy',
      '--samples',
      '--option',
    ]) {
      assert.ok(fields.includes(f), `${f} in ${fields.join(', ')}`);
    }
  });

  it('refuse a checkout before the checkin', () => {
    const { issues } = doctorOptions(input({ checkin: '2027-05-10', checkout: '2027-05-09' }));
    assert.deepEqual(
      issues.map((i) => i.field),
      ['--checkout'],
    );
  });
});
