// The usage export (docs/billing.md, "Usage export"): from the admin API and the console, grouped by
// day, key, member, model and dialect, as CSV or JSON; its totals equal to the ledger's after real
// requests through the gateway; a member's export holds its own keys only, another organization's is a
// 404; bad parameters are 400s naming them; a large export is streamed, its later pages read from the
// ledger after the client had its first. usage-export-postgres.test.ts runs it on PostgreSQL.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import t from 'tap';
import type { NewUsageRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { signInByEmail, type ConsoleMember } from '../helpers/console-member.js';
import { DIALECTS, PATHS, requestBody } from '../helpers/metered-answers.js';
import { startSmtp, type RunningSmtp } from '../helpers/smtp.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const TOKEN = 'admin-token-for-usage-export-tests';
const YAML = `
plugins:
  - name: auth
  - name: meter
console:
  port: 0
  throttle: { window_ms: 900000, per_email: 1000, per_address: 1000 }
`;
const DAY_MS = 86_400_000;
const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

let smtp: RunningSmtp;
let stack: Stack;
let store: Store;
let acme: string;
let ada: ConsoleMember;
let bob: ConsoleMember;
let carol: ConsoleMember;
const keys: Record<'ada' | 'bob' | 'ops', { id: string; key: string }> = {} as never;
/** Around the requests' time: the day before to the day after (the meter writes Date.now()). */
let range: string;

t.before(async () => {
  smtp = await startSmtp();
  stack = await startStack({
    yaml: YAML,
    env: {
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_ADMIN_TOKEN: TOKEN,
      GATEWAY_ADMIN_PORT: '0',
      ...(await freshStoreEnvironment()),
    },
  });
  store = await stack.store();
  acme = (
    await store.orgs.create('acme', [
      { email: 'ada@acme.test', role: 'admin' },
      { email: 'bob@acme.test', role: 'member' },
    ])
  ).id;
  await store.orgs.addCredits(acme, 100_000_000);
  await store.orgs.create('other', [{ email: 'carol@other.test', role: 'admin' }]);
  [ada, bob, carol] = (await Promise.all(
    ['ada@acme.test', 'bob@acme.test', 'carol@other.test'].map((email) =>
      signInByEmail(stack.gateway.consoleUrl!, smtp, email),
    ),
  )) as [ConsoleMember, ConsoleMember, ConsoleMember];
  for (const [name, member] of [
    ['ada', ada],
    ['bob', bob],
  ] as const) {
    const made = await member.call<{ key: string; record: { id: string } }>('POST', `/console/v1/orgs/${acme}/keys`, {
      name: `${name}'s key`,
    });
    keys[name] = { id: made.body.record.id, key: made.body.key };
  }
  const ops = await store.keys.create(acme, '=ops,"key"', { who: 'operator', address: null });
  keys.ops = { id: ops.record.id, key: ops.key };
  const today = Math.floor(Date.now() / DAY_MS);
  range = `from=${isoDay(today - 1)}&to=${isoDay(today + 1)}`;
  // Real requests: every dialect, streamed and not, from each key.
  for (const { key } of Object.values(keys))
    for (const dialect of DIALECTS)
      for (const stream of [false, true]) {
        const response = await fetch(stack.gateway.url + PATHS[dialect], {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify(requestBody(dialect, stream)),
        });
        if (response.status !== 200) throw new Error(`${dialect}: ${response.status}`);
        await response.text();
      }
});
t.teardown(async () => {
  await stack?.close();
  await smtp?.close();
});

interface Sums {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  cost: string;
}
type Row = Sums & Record<string, string | number | null>;
interface JsonExport {
  org_id: string;
  group_by: string[];
  rows: Row[];
  totals: Sums;
}

async function adminGet(path: string): Promise<Response> {
  return fetch(stack.gateway.adminUrl + path, { headers: { authorization: `Bearer ${TOKEN}` } });
}

async function adminJson(org: string, query: string): Promise<JsonExport> {
  const response = await adminGet(`/admin/v1/orgs/${org}/usage/export?${query}&format=json`);
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as JsonExport;
}

async function consoleExport(member: ConsoleMember, org: string, query: string) {
  return member.call<JsonExport & { error: { field?: string } }>(
    'GET',
    `/console/v1/orgs/${org}/usage/export?${query}`,
  );
}

async function ledgerCost(orgId: string): Promise<number> {
  const row = await store.db
    .selectFrom('usage')
    .select((eb) => eb.fn.sum<number>('cost_micros').as('cost'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(row.cost);
}

t.test("the totals equal the ledger's: the sum of its rows' cost, and over all time the org's spend", async (t) => {
  const exported = await adminJson('acme', `${range}&group_by=day,key,member,model,dialect`);
  const spent = (await store.orgs.get(acme)).spentMicros;
  t.ok(spent > 0, 'the requests cost something');
  t.equal(exported.totals.cost_micros, await ledgerCost(acme), 'SUM(cost_micros) of the range');
  t.equal(exported.totals.cost_micros, spent, "the org's spent_micros");
  t.equal(exported.totals.requests, 18, 'every request a row');
  t.equal(
    exported.rows.reduce((sum, row) => sum + row.cost_micros, 0),
    exported.totals.cost_micros,
    'the rows add up to the totals',
  );
});

t.test("grouped by each dimension: the request's model and dialect, the key's creator", async (t) => {
  const by = async (groups: string) => (await adminJson('acme', `${range}&group_by=${groups}`)).rows;
  t.same(
    (await by('model')).map((row) => [row.model, row.requests]),
    [['qwen3-8b', 18]],
  );
  t.same(
    (await by('dialect')).map((row) => [row.dialect, row.requests]),
    [
      ['chat', 6],
      ['messages', 6],
      ['responses', 6],
    ],
  );
  t.same(
    (await by('member')).map((row) => [row.member, row.requests]),
    [
      ['ada@acme.test', 6],
      ['bob@acme.test', 6],
      ['operator', 6],
    ],
    "the operator's key is exported as the operator's",
  );
  const byKey = await by('key');
  t.same(byKey.map((row) => row.key_name).sort(), ['=ops,"key"', "ada's key", "bob's key"].sort());
  t.same(
    (await by('day')).map((row) => row.requests),
    [18],
  );
});

t.test('CSV: an attachment, chunked; key names quoted and neutralised; a totals row last', async (t) => {
  const response = await adminGet(`/admin/v1/orgs/acme/usage/export?${range}&group_by=key`);
  t.equal(response.status, 200);
  t.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.match(response.headers.get('content-disposition'), /^attachment; filename="usage-org_[^"]+\.csv"$/);
  t.equal(response.headers.get('transfer-encoding'), 'chunked');
  t.equal(response.headers.get('content-length'), null);
  const lines = (await response.text()).split('\r\n');
  t.equal(
    lines[0],
    'key_id,key_name,requests,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,searches,cost_micros,cost',
  );
  t.ok(
    lines.some((line) => line.startsWith(`${keys.ops.id},"'=ops,""key""",6,`)),
    'the name a spreadsheet would run is text',
  );
  t.match(lines.at(-2), new RegExp(`^total,,18,.*,${(await store.orgs.get(acme)).spentMicros},`));
  t.equal(lines.at(-1), '', 'CRLF after the last record');
});

t.test("in the console an org admin exports every key's usage, a member only its own keys'", async (t) => {
  const all = await consoleExport(ada, acme, `${range}&group_by=member&format=json`);
  t.equal(all.status, 200);
  t.same(
    all.body.rows.map((row) => row.member),
    ['ada@acme.test', 'bob@acme.test', 'operator'],
  );
  t.equal(all.body.totals.cost_micros, (await store.orgs.get(acme)).spentMicros);
  const own = await consoleExport(bob, acme, `${range}&group_by=key&format=json`);
  t.equal(own.status, 200);
  t.same(
    own.body.rows.map((row) => row.key_id),
    [keys.bob.id],
  );
  t.equal(own.body.totals.requests, 6);
});

t.test("another organization's export is a 404 for a member, and so is an unknown one", async (t) => {
  t.equal((await consoleExport(carol, acme, range)).status, 404);
  t.equal((await consoleExport(bob, 'org_nothere', range)).status, 404);
  t.equal((await adminGet(`/admin/v1/orgs/nothere/usage/export?${range}`)).status, 404);
});

t.test('bad parameters are a 400 naming the parameter, from the admin API and the console', async (t) => {
  const refused: Array<[string, string]> = [
    ['to=2026-11-01', 'from'],
    ['from=2026-11-31&to=2026-12-01', 'from'],
    ['from=2026-11-02&to=2026-11-01', 'from'],
    ['from=2025-01-01&to=2026-06-01', 'to'],
    ['from=2026-11-01&to=2026-11-01&group_by=day,customer', 'group_by'],
    ['from=2026-11-01&to=2026-11-01&format=xml', 'format'],
  ];
  for (const [query, field] of refused) {
    const answer = await adminGet(`/admin/v1/orgs/acme/usage/export?${query}`);
    t.equal(answer.status, 400, `admin: ${query}`);
    t.match(await answer.json(), { error: { code: 'invalid_request', field } });
    const fromConsole = await consoleExport(ada, acme, query);
    t.equal(fromConsole.status, 400, `console: ${query}`);
    t.equal(fromConsole.body.error.field, field);
  }
});

/**
 * 50,000 rows, each its own group: 500 models × 100 days from 2026-01-01, cost 1..50,000. The models'
 * names are long, so that the export (about 11 MB) is more than the sockets' buffers hold (4 MB here).
 */
async function seedLargeLedger(orgId: string, keyId: string): Promise<{ from: number; to: number }> {
  const from = Date.UTC(2026, 0, 1) / DAY_MS;
  const rows: NewUsageRow[] = [];
  for (let i = 0; i < 50_000; i++)
    rows.push({
      id: `req_seeded_${i}`,
      org_id: orgId,
      key_id: keyId,
      dialect: 'chat',
      model: `model-${String(i % 500).padStart(3, '0')}-${'x'.repeat(200)}`,
      input_tokens: 3,
      output_tokens: 2,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      searches: 0,
      cost_micros: i + 1,
      status: 200,
      duration_ms: 1,
      created_at: (from + Math.floor(i / 500)) * DAY_MS + i,
      state: 'settled',
    });
  for (let at = 0; at < rows.length; at += 1000)
    await store.db
      .insertInto('usage')
      .values(rows.slice(at, at + 1000))
      .execute();
  return { from, to: from + 99 };
}

/** A GET whose body the test reads one 'data' event at a time (node:http: the client stops reading when paused). */
function openResponse(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers: { authorization: `Bearer ${TOKEN}` } }, resolve)
      .on('error', reject)
      .end();
  });
}

t.test(
  'a large export is streamed: chunked, its last page read from the ledger after the client had its first',
  async (t) => {
    const big = await store.orgs.create('big');
    const key = (await store.keys.create(big.id, 'batch')).record.id;
    const { from, to } = await seedLargeLedger(big.id, key);
    const response = await openResponse(
      `${stack.gateway.adminUrl}/admin/v1/orgs/big/usage/export?from=${isoDay(from)}&to=${isoDay(to)}&group_by=day,model`,
    );
    t.equal(response.statusCode, 200);
    t.equal(response.headers['transfer-encoding'], 'chunked');
    t.notOk('content-length' in response.headers);
    const chunks: string[] = [];
    // Paused in the listener itself: a flowing stream may emit the next chunk before an await returns.
    const first = await new Promise<Buffer>((resolve) =>
      response.once('data', (chunk: Buffer) => {
        response.pause();
        resolve(chunk);
      }),
    );
    chunks.push(first.toString());
    // A row the client has not been sent yet: the last group of the last day. An export that had read the
    // ledger whole before sending would not have it.
    await store.db
      .insertInto('usage')
      .values({
        id: 'req_late',
        org_id: big.id,
        key_id: key,
        dialect: 'chat',
        model: 'zz-late',
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        searches: 0,
        cost_micros: 1_000_000,
        status: 200,
        duration_ms: 1,
        created_at: (to + 1) * DAY_MS - 1,
        state: 'settled',
      })
      .execute();
    response.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    response.resume();
    await new Promise((resolve) => response.once('end', resolve));
    t.ok(chunks.length > 10, `arrived in ${chunks.length} pieces`);
    const lines = chunks.join('').split('\r\n');
    t.equal(lines.length, 1 + 50_001 + 1 + 1, 'the header, 50,001 groups, the totals, the last CRLF');
    t.equal(lines.at(-3), `${isoDay(to)},zz-late,1,0,0,0,0,0,1000000,1`, 'the row written after the export began');
    const ledger = await ledgerCost(big.id);
    t.equal(ledger, (50_000 * 50_001) / 2 + 1_000_000);
    t.match(lines.at(-2), new RegExp(`^total,,50001,150000,100000,0,0,0,${ledger},`), "the totals: the ledger's");
  },
);
