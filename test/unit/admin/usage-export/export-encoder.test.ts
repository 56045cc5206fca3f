// An export's document (admin/usage-export/export-encoder.ts): the CSV's header, rows and totals row;
// the JSON object with its rows and totals; values as shown (days, no member, names made safe).
import t from 'tap';
import { addSums, emptySums, exportEncoder } from '../../../../admin/usage-export/export-encoder.js';
import type { ExportFormat } from '../../../../admin/usage-export/export-request.js';
import type { UsageGroupRow } from '../../../../admin/usage-export/usage-pages.js';

const DAY = Date.UTC(2026, 10, 27) / 86_400_000;

const rows: UsageGroupRow[] = [
  {
    values: { day: DAY, key_id: 'key_1', key_name: '=cmd|calc', member: '' },
    requests: 2,
    input_tokens: 30,
    output_tokens: 10,
    cache_read_tokens: 4,
    cache_write_tokens: 2,
    searches: 1,
    cost_micros: 1_500_000,
  },
  {
    values: { day: DAY + 1, key_id: 'key_2', key_name: 'team, "blue"', member: 'alice@acme.test' },
    requests: 1,
    input_tokens: 5,
    output_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    searches: 0,
    cost_micros: 7,
  },
];

function documentOf(format: ExportFormat): string {
  const encoder = exportEncoder(format, {
    orgId: 'org_1',
    request: { fromDay: DAY, toDay: DAY + 1, groups: ['day', 'key', 'member'], format },
  });
  const totals = emptySums();
  let text = encoder.head();
  for (const row of rows) {
    addSums(totals, row);
    text += encoder.row(row);
  }
  return text + encoder.tail(totals);
}

t.test('CSV: a header, a row per group, a totals row; key names quoted and neutralised', async (t) => {
  t.equal(
    documentOf('csv'),
    [
      'day,key_id,key_name,member,requests,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,searches,cost_micros,cost',
      "2026-11-27,key_1,'=cmd|calc,,2,30,10,4,2,1,1500000,1.5",
      '2026-11-28,key_2,"team, ""blue""",alice@acme.test,1,5,5,0,0,0,7,0.000007',
      'total,,,,3,35,15,4,2,1,1500007,1.500007',
      '',
    ].join('\r\n'),
  );
});

t.test('JSON: one object, its rows as they went, the totals last; no member recorded is null', async (t) => {
  const document = JSON.parse(documentOf('json')) as unknown;
  t.same(document, {
    org_id: 'org_1',
    from: '2026-11-27',
    to: '2026-11-28',
    group_by: ['day', 'key', 'member'],
    rows: [
      {
        day: '2026-11-27',
        key_id: 'key_1',
        key_name: '=cmd|calc',
        member: null,
        requests: 2,
        input_tokens: 30,
        output_tokens: 10,
        cache_read_tokens: 4,
        cache_write_tokens: 2,
        searches: 1,
        cost_micros: 1_500_000,
        cost: '1.5',
      },
      {
        day: '2026-11-28',
        key_id: 'key_2',
        key_name: 'team, "blue"',
        member: 'alice@acme.test',
        requests: 1,
        input_tokens: 5,
        output_tokens: 5,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        searches: 0,
        cost_micros: 7,
        cost: '0.000007',
      },
    ],
    totals: {
      requests: 3,
      input_tokens: 35,
      output_tokens: 15,
      cache_read_tokens: 4,
      cache_write_tokens: 2,
      searches: 1,
      cost_micros: 1_500_007,
      cost: '1.500007',
    },
  });
});

t.test('JSON with no rows is still one document', async (t) => {
  const encoder = exportEncoder('json', {
    orgId: 'org_1',
    request: { fromDay: DAY, toDay: DAY, groups: ['day'], format: 'json' },
  });
  t.match(JSON.parse(encoder.head() + encoder.tail(emptySums())), { rows: [], totals: { requests: 0, cost: '0' } });
});
