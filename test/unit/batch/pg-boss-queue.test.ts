// The fleet's line queue on PostgreSQL (batch/pg-boss-queue.ts): pg-boss hands each line's job to one node, the
// node claims the line in the store; jobs of lines that ended are completed unrun, the others wait.
import { sql } from 'kysely';
import pino from 'pino';
import t from 'tap';
import type { ClaimScope } from '../../../batch/line-queue.js';
import { PgBossLineQueue } from '../../../batch/pg-boss-queue.js';
import { batchDb } from '../../../store/batch-schema.js';
import { openStore, type Store } from '../../../store/store.js';
import { freshStoreOptions } from '../../helpers/test-store.js';
import { storedBatch } from '../../kit/stored-batch.js';

const LEASE_MS = 30_000;
let store: Store;
let nodeA: PgBossLineQueue;
let nodeB: PgBossLineQueue;
let orgId: string;
let keyId: string;
let batches = 0;

t.before(async () => {
  store = await openStore(await freshStoreOptions('postgres'));
  const log = pino({ level: 'silent' });
  nodeA = await PgBossLineQueue.start(store, 'node_a', { leaseMs: LEASE_MS }, log);
  nodeB = await PgBossLineQueue.start(store, 'node_b', { leaseMs: LEASE_MS }, log);
  orgId = (await store.orgs.create('acme')).id;
  keyId = (await store.keys.create(orgId, 'k')).record.id;
});
t.teardown(async () => {
  await nodeA.close();
  await nodeB.close();
  await store.close();
});

/** A new batch of `lines` lines, made through node A. */
async function batchOf(lines: number): Promise<string> {
  const id = `batch_${++batches}`;
  const batch = storedBatch(id, orgId, keyId);
  await nodeA.create(
    batch,
    Array.from({ length: lines }, (_, i) => ({ customId: `c${i}`, offset: i, length: 1 })),
  );
  return id;
}
const runnable = (...ids: string[]): ClaimScope => ({ runnable: new Set(ids), pausedUntil: new Map() });
const claim = (node: PgBossLineQueue, count: number, scope: ClaimScope, now = Date.now()) =>
  node.claim(count, scope, now, now + LEASE_MS);

/** The jobs of the batch's lines, by state. */
async function jobStates(batchId: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ state: string; count: string }>`
    select state, count(*) as count from pgboss.job where data->>'batchId' = ${batchId} group by state`.execute(
    store.db,
  );
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
}

t.test('a batch and its lines’ jobs are made in one transaction: all of them or none', async (t) => {
  const id = await batchOf(3);
  t.same(await jobStates(id), { created: 3 });
  const again = storedBatch(id, orgId, keyId);
  await t.rejects(nodeA.create(again, [{ customId: 'x', offset: 0, length: 1 }]), 'the same batch id again fails');
  t.same(await jobStates(id), { created: 3 }, 'and leaves no job of its own');
  // The lines are run away, so the next tests start on an empty queue.
  for (const line of await claim(nodeA, 3, runnable(id)))
    await nodeA.finish(line, { state: 'succeeded', statusCode: 200, result: '{}' }, Date.now());
});

t.test('each line is handed to one node, and each node claims it in the store', async (t) => {
  const id = await batchOf(6);
  const [a, b] = await Promise.all([claim(nodeA, 3, runnable(id)), claim(nodeB, 3, runnable(id))]);
  const lineNos = [...a, ...b].map((line) => line.lineNo).sort();
  t.same(lineNos, [0, 1, 2, 3, 4, 5], 'six lines, none twice');
  const owners = await batchDb(store.db)
    .selectFrom('batch_lines')
    .select(['line_no', 'lease_owner'])
    .where('batch_id', '=', id)
    .orderBy('line_no')
    .execute();
  for (const line of a) t.equal(owners[line.lineNo]!.lease_owner, 'node_a');
  for (const line of b) t.equal(owners[line.lineNo]!.lease_owner, 'node_b');
  for (const line of a) await nodeA.finish(line, { state: 'succeeded', statusCode: 200, result: '{}' }, Date.now());
  for (const line of b) await nodeB.finish(line, { state: 'succeeded', statusCode: 200, result: '{}' }, Date.now());
  t.same(await jobStates(id), { completed: 6 }, 'a finished line completes its job');
});

t.test(
  'regression: a job fetched before the worker listed its batch waits, it is not dropped (a batch made during a round lost every line)',
  async (t) => {
    const id = await batchOf(2);
    // The round read its batches before this one was made: it does not list it.
    const roundStart = Date.now() - 2_000;
    t.same(await claim(nodeA, 2, runnable(), roundStart), [], 'nothing claimed');
    t.same(await jobStates(id), { completed: 2, created: 2 }, 'each job is queued again as a new one');
    const lines = await claim(nodeA, 2, runnable(id));
    t.same(lines.map((line) => line.lineNo).sort(), [0, 1], 'the next round runs them');
    for (const line of lines)
      await nodeA.finish(line, { state: 'succeeded', statusCode: 200, result: '{}' }, Date.now());
  },
);

t.test('the jobs of a paused batch wait until the pause ends', async (t) => {
  const id = await batchOf(1);
  const now = Date.now();
  const pausedUntil = now + 60_000;
  t.same(await claim(nodeA, 1, { runnable: new Set([id]), pausedUntil: new Map([[id, pausedUntil]]) }, now), []);
  const { rows } = await sql<{ start_after: Date }>`
    select start_after from pgboss.job where data->>'batchId' = ${id} and state = 'created'`.execute(store.db);
  t.same(
    rows.map((row) => row.start_after.getTime()),
    [pausedUntil],
    'its job starts after the pause',
  );
});

t.test('the job of a line that ended (its batch cancelled) is completed unrun', async (t) => {
  const id = await batchOf(2);
  t.ok(await store.batches.cancel(id, Date.now()));
  t.same(await claim(nodeA, 2, runnable(id)), [], 'no line claimed');
  t.same(await jobStates(id), { completed: 2 });
});

t.test('a job whose line another node’s live claim holds is put back for when that claim runs out', async (t) => {
  const id = await batchOf(1);
  const [line] = await claim(nodeA, 1, runnable(id));
  t.ok(line);
  // The job comes round again (as after its expiry) while node A still runs the line.
  await sql`update pgboss.job set state = 'retry' where data->>'batchId' = ${id}`.execute(store.db);
  t.same(await claim(nodeB, 1, runnable(id)), [], 'node B does not take it');
  const { rows } = await sql<{ start_after: Date }>`
    select start_after from pgboss.job where data->>'batchId' = ${id} and state = 'created'`.execute(store.db);
  const lease = await batchDb(store.db)
    .selectFrom('batch_lines')
    .select('lease_until')
    .where('batch_id', '=', id)
    .executeTakeFirstOrThrow();
  t.same(
    rows.map((row) => row.start_after.getTime()),
    [Number(lease.lease_until)],
    'queued again for the end of node A’s claim',
  );
});

t.test('a node whose claim ran out finishes without completing the job another node now holds', async (t) => {
  const id = await batchOf(1);
  const [late] = await claim(nodeA, 1, runnable(id));
  // Node A's claim runs out and its job expires: node B is handed the same job and claims the line.
  await batchDb(store.db).updateTable('batch_lines').set({ lease_until: 0 }).where('batch_id', '=', id).execute();
  await sql`update pgboss.job set state = 'retry' where data->>'batchId' = ${id}`.execute(store.db);
  const [taken] = await claim(nodeB, 1, runnable(id));
  t.equal(taken?.jobId, late?.jobId, 'the same job');
  t.equal(taken?.attempt, 2);
  const ok = { state: 'succeeded', statusCode: 200, result: '{}' } as const;
  t.equal(await nodeA.finish(late!, ok, Date.now()), false, 'node A’s outcome is not kept');
  t.same(await jobStates(id), { active: 1 }, 'the job stays node B’s');
  t.equal(await nodeB.finish(taken!, ok, Date.now()), true);
  t.same(await jobStates(id), { completed: 1 });
});

t.test(
  'regression: nodes starting at once on a new database all start, and leave the store’s connections usable (pg-boss’s failed schema race left a pooled connection in an aborted transaction)',
  async (t) => {
    const fresh = await openStore(await freshStoreOptions('postgres'));
    t.teardown(() => fresh.close());
    const log = pino({ level: 'silent' });
    const nodes = await Promise.all(
      ['node_1', 'node_2', 'node_3'].map((owner) => PgBossLineQueue.start(fresh, owner, { leaseMs: LEASE_MS }, log)),
    );
    t.equal(nodes.length, 3, 'every node started');
    // As many queries at once as the pool has connections: each connection answers.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => sql<{ one: number }>`select 1 as one`.execute(fresh.db)),
    );
    t.same(
      answers.map((answer) => answer.rows[0]!.one),
      [1, 1, 1, 1, 1],
    );
    for (const node of nodes) await node.close();
  },
);
