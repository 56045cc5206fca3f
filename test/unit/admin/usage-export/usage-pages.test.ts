// The export's grouped sums from the usage ledger (admin/usage-export/usage-pages.ts): each dimension
// alone and together, the UTC day's edges, a member's own keys, pages that join up, totals equal to the
// ledger's. usage-pages-postgres.test.ts runs the same on PostgreSQL.
import t, { type Test } from 'tap';
import type { ExportGroup, ExportRequest } from '../../../../admin/usage-export/export-request.js';
import { usagePages, type ExportScope, type UsageGroupRow } from '../../../../admin/usage-export/usage-pages.js';
import type { NewUsageRow } from '../../../../store/schema.js';
import { openStore, type Store } from '../../../../store/store.js';
import { freshStoreOptions } from '../../../helpers/test-store.js';

const DAY_MS = 86_400_000;
/** 2026-11-27, as whole days since the epoch. */
const DAY = Date.UTC(2026, 10, 27) / DAY_MS;

interface Ledger {
  store: Store;
  orgId: string;
  /** Keys by name: `alice` made by alice@acme.test, `ops` by the operator, `old` with no creator recorded. */
  keys: Record<'alice' | 'bob' | 'ops' | 'old', string>;
  add(row: Partial<NewUsageRow> & { key: keyof Ledger['keys']; at: number }): Promise<void>;
}

let rowIds = 0;

async function ledger(t: Test): Promise<Ledger> {
  const store = await openStore(await freshStoreOptions());
  t.teardown(() => store.close());
  const org = await store.orgs.create('acme', [
    { email: 'alice@acme.test', role: 'member' },
    { email: 'bob@acme.test', role: 'admin' },
  ]);
  const key = async (name: string, who: string) =>
    (await store.keys.create(org.id, name, { who, address: null })).record.id;
  const keys = {
    alice: await key('alice key', 'alice@acme.test'),
    bob: await key('bob key', 'bob@acme.test'),
    ops: await key('ops key', 'operator'),
    old: await key('old key', 'cli'),
  };
  await store.db.updateTable('api_keys').set({ created_by: null }).where('id', '=', keys.old).execute();
  return {
    store,
    orgId: org.id,
    keys,
    async add({ key: name, at, ...row }) {
      await store.db
        .insertInto('usage')
        .values({
          id: `req_${++rowIds}`,
          org_id: org.id,
          key_id: keys[name],
          dialect: 'chat',
          input_tokens: 10,
          output_tokens: 5,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          searches: 0,
          cost_micros: 100,
          status: 200,
          duration_ms: 1,
          created_at: at,
          state: 'settled',
          ...row,
        })
        .execute();
    },
  };
}

function request(groups: ExportGroup[], fromDay = DAY, toDay = DAY + 1): ExportRequest {
  return { fromDay, toDay, groups, format: 'json' };
}

async function rowsOf(
  l: Ledger,
  groups: ExportGroup[],
  options: { scope?: Partial<ExportScope>; from?: number; to?: number; pageRows?: number } = {},
): Promise<UsageGroupRow[]> {
  const rows: UsageGroupRow[] = [];
  const scope = { orgId: l.orgId, ...options.scope };
  for await (const page of usagePages(l.store.db, scope, request(groups, options.from, options.to), options.pageRows))
    rows.push(...page);
  return rows;
}

const at = (day: number, ms = 0): number => day * DAY_MS + ms;

t.test('grouped by day: one row per UTC day, as whole days since the epoch', async (t) => {
  const l = await ledger(t);
  await l.add({ key: 'alice', at: at(DAY, 1000) });
  await l.add({ key: 'bob', at: at(DAY, 2000), cost_micros: 250 });
  await l.add({ key: 'bob', at: at(DAY + 1) });
  const rows = await rowsOf(l, ['day']);
  t.same(
    rows.map((row) => [row.values.day, row.requests, row.cost_micros]),
    [
      [DAY, 2, 350],
      [DAY + 1, 1, 100],
    ],
  );
});

t.test('grouped by key: its id and name', async (t) => {
  const l = await ledger(t);
  await l.add({ key: 'alice', at: at(DAY) });
  await l.add({ key: 'alice', at: at(DAY) });
  await l.add({ key: 'bob', at: at(DAY) });
  const rows = await rowsOf(l, ['key']);
  t.same(
    rows.map((row) => [row.values.key_id, row.values.key_name, row.requests]).sort(),
    [
      [l.keys.alice, 'alice key', 2],
      [l.keys.bob, 'bob key', 1],
    ].sort(),
  );
});

t.test("grouped by member: the key's creator, the operator's keys as 'operator', no creator as ''", async (t) => {
  const l = await ledger(t);
  for (const key of ['alice', 'bob', 'ops', 'old'] as const) await l.add({ key, at: at(DAY) });
  const rows = await rowsOf(l, ['member']);
  t.same(
    rows.map((row) => row.values.member),
    ['', 'alice@acme.test', 'bob@acme.test', 'operator'],
    'no row dropped, in order',
  );
});

t.test("grouped by model: the request's model, rows from before the model was recorded as ''", async (t) => {
  const l = await ledger(t);
  await l.add({ key: 'alice', at: at(DAY), model: 'qwen3-8b' });
  await l.add({ key: 'bob', at: at(DAY), model: 'qwen3-8b' });
  await l.add({ key: 'bob', at: at(DAY), model: 'llama-3.1-8b' });
  await l.add({ key: 'bob', at: at(DAY), model: null });
  t.same(
    (await rowsOf(l, ['model'])).map((row) => [row.values.model, row.requests]),
    [
      ['', 1],
      ['llama-3.1-8b', 1],
      ['qwen3-8b', 2],
    ],
  );
  const expected = [
    [l.keys.alice, 'qwen3-8b'],
    [l.keys.bob, ''],
    [l.keys.bob, 'llama-3.1-8b'],
    [l.keys.bob, 'qwen3-8b'],
  ].sort(([keyA, modelA], [keyB, modelB]) => (keyA! < keyB! ? -1 : keyA! > keyB! ? 1 : modelA! < modelB! ? -1 : 1));
  t.same(
    (await rowsOf(l, ['key', 'model'], { pageRows: 1 })).map((row) => [row.values.key_id, row.values.model]),
    expected,
    'ordered by the key id, then the model, a row a page',
  );
});

t.test('grouped by dialect, and by day, member and dialect together', async (t) => {
  const l = await ledger(t);
  await l.add({ key: 'alice', at: at(DAY), dialect: 'messages', input_tokens: 7 });
  await l.add({ key: 'alice', at: at(DAY), dialect: 'chat' });
  await l.add({ key: 'alice', at: at(DAY + 1), dialect: 'chat' });
  await l.add({ key: 'bob', at: at(DAY), dialect: 'chat' });
  t.same(
    (await rowsOf(l, ['dialect'])).map((row) => [row.values.dialect, row.requests, row.input_tokens]),
    [
      ['chat', 3, 30],
      ['messages', 1, 7],
    ],
  );
  t.same(
    (await rowsOf(l, ['day', 'member', 'dialect'])).map((row) => [
      row.values.day,
      row.values.member,
      row.values.dialect,
      row.requests,
    ]),
    [
      [DAY, 'alice@acme.test', 'chat', 1],
      [DAY, 'alice@acme.test', 'messages', 1],
      [DAY, 'bob@acme.test', 'chat', 1],
      [DAY + 1, 'alice@acme.test', 'chat', 1],
    ],
  );
});

t.test('the range is whole UTC days, `to` included: 23:59:59.999 is in, the next midnight out', async (t) => {
  const l = await ledger(t);
  await l.add({ key: 'alice', at: at(DAY) - 1, cost_micros: 1 });
  await l.add({ key: 'alice', at: at(DAY), cost_micros: 10 });
  await l.add({ key: 'alice', at: at(DAY + 1) - 1, cost_micros: 100 });
  await l.add({ key: 'alice', at: at(DAY + 1), cost_micros: 1000 });
  const rows = await rowsOf(l, ['day'], { from: DAY, to: DAY });
  t.same(
    rows.map((row) => [row.values.day, row.requests, row.cost_micros]),
    [[DAY, 2, 110]],
  );
});

t.test("a member's scope: only the keys it made", async (t) => {
  const l = await ledger(t);
  await l.add({ key: 'alice', at: at(DAY) });
  await l.add({ key: 'bob', at: at(DAY) });
  await l.add({ key: 'ops', at: at(DAY) });
  const rows = await rowsOf(l, ['key'], { scope: { createdBy: 'alice@acme.test' } });
  t.same(
    rows.map((row) => row.values.key_id),
    [l.keys.alice],
  );
});

t.test("another organization's rows are never in the export", async (t) => {
  const l = await ledger(t);
  const other = await l.store.orgs.create('other');
  const key = (await l.store.keys.create(other.id, 'theirs')).record.id;
  await l.add({ key: 'alice', at: at(DAY) });
  await l.add({ key: 'alice', at: at(DAY), org_id: other.id, key_id: key });
  t.same(
    (await rowsOf(l, ['day'])).map((row) => row.requests),
    [1],
  );
});

t.test('pages of a few rows join up to the same rows as one page', async (t) => {
  const l = await ledger(t);
  for (let day = 0; day < 4; day++)
    for (const key of ['alice', 'bob', 'ops', 'old'] as const)
      for (const dialect of ['chat', 'messages'] as const) await l.add({ key, at: at(DAY + day), dialect });
  const groups: ExportGroup[] = ['day', 'member', 'dialect'];
  const whole = await rowsOf(l, groups, { to: DAY + 3 });
  t.equal(whole.length, 32);
  for (const pageRows of [1, 3, 7, 32])
    t.same(await rowsOf(l, groups, { to: DAY + 3, pageRows }), whole, `${pageRows} a page`);
});

t.test("totals equal the ledger's: every state counts, a held row at 0", async (t) => {
  const l = await ledger(t);
  await l.add({ key: 'alice', at: at(DAY), cost_micros: 1_234_567 });
  await l.add({ key: 'bob', at: at(DAY), cost_micros: 0, state: 'held', hold_micros: 500 });
  await l.add({ key: 'ops', at: at(DAY + 1), cost_micros: 0, state: 'released', hold_micros: 500 });
  await l.add({ key: 'old', at: at(DAY + 1), cost_micros: 89 });
  const rows = await rowsOf(l, ['key', 'day']);
  const ledgerSum = await l.store.db
    .selectFrom('usage')
    .select((eb) => [eb.fn.sum<number>('cost_micros').as('cost'), eb.fn.countAll<number>().as('rows')])
    .where('org_id', '=', l.orgId)
    .executeTakeFirstOrThrow();
  t.equal(
    rows.reduce((sum, row) => sum + row.cost_micros, 0),
    Number(ledgerSum.cost),
  );
  t.equal(
    rows.reduce((sum, row) => sum + row.requests, 0),
    Number(ledgerSum.rows),
  );
});
