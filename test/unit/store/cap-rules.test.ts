// The periods of the spend caps (store/cap-rules.ts): UTC days, weeks from Monday, calendar months.
import t from 'tap';
import { capsJson, hasCaps, periodOf } from '../../../store/cap-rules.js';

const at = (iso: string): number => Date.parse(iso);
const bounds = (period: 'day' | 'week' | 'month', iso: string) => {
  const { start, end } = periodOf(period, at(iso));
  return [new Date(start).toISOString(), new Date(end).toISOString()];
};

t.test('a day is a UTC day: its last millisecond is in it, the next midnight is not', async (t) => {
  t.same(bounds('day', '2026-11-28T23:59:59.999Z'), ['2026-11-28T00:00:00.000Z', '2026-11-29T00:00:00.000Z']);
  t.same(bounds('day', '2026-11-29T00:00:00.000Z'), ['2026-11-29T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
});

t.test('a week runs from Monday 00:00 UTC to the next Monday', async (t) => {
  // 2026-11-28 is a Saturday; 2026-11-23 the Monday before it.
  t.same(bounds('week', '2026-11-28T12:00:00.000Z'), ['2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
  t.same(bounds('week', '2026-11-30T00:00:00.000Z'), ['2026-11-30T00:00:00.000Z', '2026-12-07T00:00:00.000Z']);
  t.same(bounds('week', '2026-11-29T23:59:59.999Z'), ['2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
  // Before the epoch's Thursday, too.
  t.same(bounds('week', '1969-12-31T00:00:00.000Z'), ['1969-12-29T00:00:00.000Z', '1970-01-05T00:00:00.000Z']);
});

t.test('a month is a calendar month in UTC, whatever its length', async (t) => {
  t.same(bounds('month', '2026-02-28T23:59:59.999Z'), ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
  t.same(bounds('month', '2026-12-31T10:00:00.000Z'), ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
});

t.test('caps as JSON name each cap set by its wire name, and only those', async (t) => {
  t.same(capsJson({ dayMicros: 5, concurrentRequests: 0 }), { day_micros: 5, concurrent_requests: 0 });
  t.same(capsJson(undefined), {});
  t.equal(hasCaps({}), false);
  t.equal(hasCaps({ requestsPerMinute: 0 }), true, 'a cap of zero is a cap');
});
