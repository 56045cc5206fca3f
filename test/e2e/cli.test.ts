// The `gateway` CLI on a temporary data directory, run as a child process (test/helpers/gateway-process.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runGateway, type CliResult } from '../helpers/gateway-process.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-cli-')), 'data');
const gateway = (...args: string[]): CliResult => runGateway({ GATEWAY_DATA_DIR: dataDir }, ...args);

t.test('the CLI creates an org, adds credits, creates, lists and revokes keys', async (t) => {
  const created = gateway(
    'orgs',
    'create',
    'acme',
    '--member',
    'ada@example.com:admin',
    '--member',
    'bob@example.com:member',
  );
  t.equal(created.code, 0, created.err);
  const [orgId, orgName] = created.out.trim().split('\t');
  t.match(orgId, /^org_/);
  t.equal(orgName, 'acme');

  const credits = gateway('credits', 'add', 'acme', '12.5');
  t.equal(credits.code, 0, credits.err);
  t.match(credits.out, /\t12\.5 credits$/m);
  t.equal(gateway('credits', 'add', orgId!, '0.000001').code, 0, 'ORG may be the id');
  t.match(gateway('orgs', 'list').out, new RegExp(`^${orgId}\\tacme\\t12\\.500001 credits\\t0 spent\\t`, 'm'));

  const first = gateway('keys', 'create', 'acme', 'ci');
  t.equal(first.code, 0, first.err);
  const key = first.out.trim();
  t.match(key, /^sk-svc-[A-Za-z0-9_-]{43}$/, 'the full key, printed once on stdout');
  t.match(first.err, /shown only this once/);
  t.equal(gateway('keys', 'create', orgId!, 'laptop').code, 0);

  const listed = gateway('keys', 'list', 'acme');
  t.equal(listed.code, 0, listed.err);
  const lines = listed.out.trim().split('\n');
  t.equal(lines.length, 2, 'one key per line');
  const [id, name, last4, createdAt, lastUsed, status] = lines[0]!.split('\t');
  t.match(id, /^key_/, 'the id first');
  t.equal(name, 'ci');
  t.equal(last4, `...${key.slice(-4)}`);
  t.ok(!Number.isNaN(Date.parse(createdAt!)));
  t.equal(lastUsed, 'never');
  t.equal(status, 'active');
  t.notMatch(listed.out, key, 'the list never shows the key');

  const revoked = gateway('keys', 'revoke', id!);
  t.equal(revoked.code, 0, revoked.err);
  t.match(gateway('keys', 'list', 'acme').out.split('\n')[0], /\trevoked$/);
  t.match(gateway('keys', 'revoke', id!).err, /already revoked/);
  t.match(gateway('keys', 'list', 'acme').out.split('\n')[1], /\tactive$/, 'the other key is untouched');
});

t.test('the CLI shows an org with its tier and members, and adds and removes members', async (t) => {
  t.equal(gateway('members', 'add', 'acme', 'cy@example.com:member').code, 0);
  t.equal(gateway('members', 'add', 'acme', 'bob@example.com:admin').code, 0, 'adding a member again changes the role');
  t.equal(gateway('members', 'remove', 'acme', 'ada@example.com').code, 0);
  const shown = gateway('orgs', 'show', 'acme');
  t.equal(shown.code, 0, shown.err);
  const [org, tier, ...members] = shown.out.trim().split('\n');
  t.match(org, /^org_\S+\tacme\t/);
  t.equal(tier, 'tier\tStart\t1000 requests/min\t2000000 input tokens/min\t400000 output tokens/min');
  t.same(members, ['member\tbob@example.com\tadmin', 'member\tcy@example.com\tmember']);
  t.match(
    gateway('members', 'remove', 'acme', 'ada@example.com').err,
    /^gateway: 'ada@example.com' is not a member of 'acme'$/m,
  );
});

t.test('CLI errors are one line and a non-zero exit code', async (t) => {
  const cases: Array<[string[], number, RegExp]> = [
    [['orgs', 'create', 'acme'], 1, /^gateway: an organization named 'acme' exists/],
    [['keys', 'list', 'nope'], 1, /^gateway: no organization 'nope'$/],
    [['keys', 'revoke', 'key_nope'], 1, /^gateway: no key 'key_nope'$/],
    [['credits', 'add', 'acme', 'ten'], 1, /^gateway: 'ten' is not an amount of credits/],
    [['credits', 'add', 'acme'], 64, /^gateway: usage: gateway credits add ORG AMOUNT$/],
    [
      ['orgs', 'create', 'x', '--member', 'ada@example.com'],
      64,
      /^gateway: --member 'ada@example.com': expected EMAIL:ROLE/,
    ],
    [['keys', 'rotate', 'x'], 64, /^gateway: unknown command 'gateway keys rotate x'$/],
  ];
  for (const [args, code, message] of cases) {
    const result = gateway(...args);
    t.equal(result.code, code, `gateway ${args.join(' ')}: exit ${code}`);
    t.equal(result.err.trim().split('\n').length, 1, 'one line');
    t.match(result.err.trim(), message);
    t.equal(result.out, '', 'nothing on stdout');
  }
});

t.test(
  'gateway ledger check: the books balance (exit 0), and an organization whose balance was changed behind the ledger is named (exit 1)',
  async (t) => {
    const balanced = gateway('ledger', 'check');
    t.equal(balanced.code, 0, balanced.err);
    t.match(
      balanced.out,
      /^org_\S+\tbalance 12\.500001 credits\tadded 12\.500001 credits\tsettled 0 credits\theld 0 credits\tdiscrepancy 0 credits$/m,
    );
    t.match(balanced.err, /the books balance/);

    const { openStore } = await import('../../store/store.js');
    const store = await openStore({ dataDir });
    await store.db.updateTable('orgs').set({ balance_micros: 1 }).where('name', '=', 'acme').execute();
    await store.close();
    const unbalanced = gateway('ledger', 'check');
    t.equal(unbalanced.code, 1);
    t.match(unbalanced.err, /1 organization\(s\) do not balance: org_/);
  },
);

t.test(
  "'gateway orgs service-tiers' shows an organization's tiers and sets its default and the tiers it may use",
  async (t) => {
    t.equal(gateway('orgs', 'create', 'tiered').code, 0);
    const shown = gateway('orgs', 'service-tiers', 'tiered');
    t.equal(shown.code, 0, shown.err);
    t.same(shown.out.trim().split('\n'), ['service_tier_default\tdefault', 'service_tiers_allowed\tall']);
    const set = gateway('orgs', 'service-tiers', 'tiered', 'flex', 'flex');
    t.equal(set.code, 0, set.err);
    t.same(set.out.trim().split('\n'), ['service_tier_default\tflex', 'service_tiers_allowed\tflex']);
    t.equal(
      gateway('orgs', 'service-tiers', 'tiered', 'default', 'none').out.split('\n')[1],
      'service_tiers_allowed\tnone',
    );
    const refused = gateway('orgs', 'service-tiers', 'tiered', 'priority', 'flex');
    t.equal(refused.code, 1, 'a default tier the organization may not use is refused');
    t.match(refused.err, /'priority' is not among the tiers allowed/);
    t.equal(gateway('orgs', 'service-tiers', 'tiered', 'scale', 'all').code, 64, 'an unknown tier is a usage error');
    t.equal(gateway('orgs', 'service-tiers', 'tiered', 'flex', 'default').code, 64, "'default' is never listed");
  },
);
