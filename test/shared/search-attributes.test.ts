/**
 * Queries over every namespace division (src/shared/search-attributes.ts): the caller's filter
 * kept whole, the division clause after it, an `ORDER BY` left last.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVERY_DIVISION, inEveryDivision } from '../../src/shared/search-attributes';

describe('inEveryDivision', () => {
  it('puts the filter in parentheses, so an OR in it does not swallow the clause', () => {
    assert.equal(
      inEveryDivision("BookingPhase = 'A' OR BookingPhase = 'B'"),
      `(BookingPhase = 'A' OR BookingPhase = 'B') AND ${EVERY_DIVISION}`,
    );
  });

  it('lists every run for an empty filter', () => {
    assert.equal(inEveryDivision(''), EVERY_DIVISION);
    assert.equal(inEveryDivision('  '), EVERY_DIVISION);
  });

  it('leaves an ORDER BY last, with or without a filter', () => {
    assert.equal(
      inEveryDivision("WorkflowId = 'x' order by StartTime desc, RunId"),
      `(WorkflowId = 'x') AND ${EVERY_DIVISION} order by StartTime desc, RunId`,
    );
    assert.equal(inEveryDivision('ORDER BY StartTime'), `${EVERY_DIVISION} ORDER BY StartTime`);
  });

  it('keeps "order by" inside a quoted value', () => {
    assert.equal(
      inEveryDivision("OrderId = 'order by x'"),
      `(OrderId = 'order by x') AND ${EVERY_DIVISION}`,
    );
  });
});
