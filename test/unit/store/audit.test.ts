// The audit log (store/audit-log.ts): each change to an organization is written with its entry, in one
// transaction, by the store call that makes it; who, from where, on what.
import t from 'tap';
import { openStore, type Store } from '../../../store/store.js';
import { freshStoreOptions } from '../../helpers/test-store.js';

const ADA = { who: 'ada@acme.test', address: '198.51.100.7' };

async function newStore(t: { teardown(fn: () => unknown): void }): Promise<Store> {
  const store = await openStore(await freshStoreOptions());
  t.teardown(() => store.close());
  return store;
}

t.test(
  'every change to an organization is in its audit log, newest first, with who, from where and on what',
  async (t) => {
    const store = await newStore(t);
    const org = await store.orgs.create('acme', [{ email: 'ada@acme.test', role: 'admin' }], {
      who: 'operator',
      address: '127.0.0.1',
    });
    await store.orgs.addCredits(org.id, 2_500_000, 'admin api', { who: 'operator', address: '127.0.0.1' });
    const { record } = await store.keys.create(org.id, 'laptop', ADA);
    await store.keys.revoke(record.id, ADA);
    await store.orgs.addMember(org.id, { email: 'bob@acme.test', role: 'member' }, ADA);
    await store.orgs.addMember(org.id, { email: 'bob@acme.test', role: 'admin' }, ADA);
    await store.orgs.removeMember(org.id, 'bob@acme.test', ADA);
    const entries = await store.audit.list(org.id);
    t.same(
      entries.map((entry) => [entry.action, entry.actor, entry.address, entry.subject, entry.detail]),
      [
        ['member.removed', 'ada@acme.test', '198.51.100.7', 'bob@acme.test', {}],
        [
          'member.role_changed',
          'ada@acme.test',
          '198.51.100.7',
          'bob@acme.test',
          { role: 'admin', previous_role: 'member' },
        ],
        ['member.added', 'ada@acme.test', '198.51.100.7', 'bob@acme.test', { role: 'member' }],
        ['key.revoked', 'ada@acme.test', '198.51.100.7', record.id, { name: 'laptop' }],
        ['key.created', 'ada@acme.test', '198.51.100.7', record.id, { name: 'laptop' }],
        ['credits.added', 'operator', '127.0.0.1', null, { amount_micros: 2_500_000, note: 'admin api' }],
        ['member.added', 'operator', '127.0.0.1', 'ada@acme.test', { role: 'admin' }],
        ['org.created', 'operator', '127.0.0.1', null, { name: 'acme' }],
      ],
    );
    t.equal(record.createdBy, 'ada@acme.test', 'a key knows who made it');
  },
);

t.test('what changes nothing writes nothing: a role given again, a key revoked again, a missing member', async (t) => {
  const store = await newStore(t);
  const org = await store.orgs.create('acme', [{ email: 'ada@acme.test', role: 'admin' }]);
  const { record } = await store.keys.create(org.id, 'laptop', ADA);
  await store.keys.revoke(record.id, ADA);
  const before = (await store.audit.list(org.id)).length;
  t.equal(await store.orgs.addMember(org.id, { email: 'ada@acme.test', role: 'admin' }, ADA), 'unchanged');
  await store.keys.revoke(record.id, ADA);
  await t.rejects(store.orgs.removeMember(org.id, 'nobody@acme.test', ADA), { code: 'GW_ERR_STORE_MEMBER_NOT_FOUND' });
  t.equal((await store.audit.list(org.id)).length, before);
});

t.test("an organization's log holds only its own entries", async (t) => {
  const store = await newStore(t);
  const acme = await store.orgs.create('acme');
  const other = await store.orgs.create('other');
  await store.keys.create(other.id, 'theirs', ADA);
  t.same(
    (await store.audit.list(acme.id)).map((entry) => entry.action),
    ['org.created'],
  );
});

t.test('memberships: the organizations an address belongs to, with its role in each', async (t) => {
  const store = await newStore(t);
  const acme = await store.orgs.create('acme', [{ email: 'ada@acme.test', role: 'admin' }]);
  const beta = await store.orgs.create('beta', [{ email: 'Ada@Acme.test', role: 'member' }]);
  await store.orgs.create('gamma');
  const memberships = await store.orgs.memberships(' ADA@acme.test ');
  t.same(
    memberships.map(({ org, role }) => [org.id, role]),
    [
      [acme.id, 'admin'],
      [beta.id, 'member'],
    ],
  );
  t.equal(await store.orgs.roleOf(beta.id, 'ada@acme.test'), 'member');
  t.equal(await store.orgs.roleOf(beta.id, 'bob@acme.test'), undefined);
});
