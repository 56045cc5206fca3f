// An export's query string (admin/usage-export/export-request.ts): what it takes, and a 400 naming the
// parameter for everything else.
import t, { type Test } from 'tap';
import { exportRequestOf, MAX_EXPORT_DAYS } from '../../../../admin/usage-export/export-request.js';

const DAY_MS = 86_400_000;
const read = (query: string) => exportRequestOf(new URLSearchParams(query));

function refusal(t: Test, query: string, field: string): void {
  t.throws(() => read(query), { name: 'AdminError', status: 400, field }, `${query} → 400 on '${field}'`);
}

t.test('from and to are UTC days, both included; group_by in the order asked; csv by default', async (t) => {
  t.same(read('from=2026-11-01&to=2026-11-28&group_by=key,day'), {
    fromDay: Date.UTC(2026, 10, 1) / DAY_MS,
    toDay: Date.UTC(2026, 10, 28) / DAY_MS,
    groups: ['key', 'day'],
    format: 'csv',
  });
  t.same(read('from=2026-11-01&to=2026-11-01&format=json').groups, ['day'], 'by day when group_by is absent');
  t.same(read('from=2026-11-01&to=2026-11-01&group_by=day,key,member,model,dialect').groups, [
    'day',
    'key',
    'member',
    'model',
    'dialect',
  ]);
});

t.test('a missing or malformed day is a 400 naming it', async (t) => {
  refusal(t, 'to=2026-11-01', 'from');
  refusal(t, 'from=2026-11-01', 'to');
  refusal(t, 'from=2026-11-1&to=2026-11-02', 'from');
  refusal(t, 'from=2026-02-30&to=2026-03-02', 'from');
  refusal(t, 'from=2026-11-01&to=2026-11-01T00:00:00Z', 'to');
  refusal(t, 'from=yesterday&to=2026-11-01', 'from');
});

t.test('from after to is a 400 on from', async (t) => {
  refusal(t, 'from=2026-11-02&to=2026-11-01', 'from');
});

t.test(`a range is at most ${MAX_EXPORT_DAYS} days`, async (t) => {
  t.equal(read('from=2025-01-01&to=2026-01-01').toDay - read('from=2025-01-01&to=2026-01-01').fromDay + 1, 366);
  refusal(t, 'from=2025-01-01&to=2026-01-02', 'to');
});

t.test('an unknown or repeated group, or an empty group_by, is a 400 on group_by', async (t) => {
  refusal(t, 'from=2026-11-01&to=2026-11-01&group_by=day,org', 'group_by');
  refusal(t, 'from=2026-11-01&to=2026-11-01&group_by=day,day', 'group_by');
  refusal(t, 'from=2026-11-01&to=2026-11-01&group_by=', 'group_by');
});

t.test('an unknown format is a 400 on format', async (t) => {
  refusal(t, 'from=2026-11-01&to=2026-11-01&format=xlsx', 'format');
});
