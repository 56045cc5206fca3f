// The upstream's prompt cache between organizations (docs/prompt-caching.md, "Between organizations";
// proxy/upstream/cache-isolation.ts): on vLLM each organization's requests carry a salt of its own, so
// another organization's prefix is never reused (and its cached tokens are the caller's own: reads);
// where the cache is shared, the upstream's cached tokens are neither billed nor shown as reads, and only
// the organization's own registry entries (cache_control marks) are. The sim plays the upstream (its
// prefix cache honours cache_salt as vLLM's does); x-sim-usage sets the cached tokens it reports.
import t, { type Test } from 'tap';
import type { Store } from '../../store/store.js';
import { ledgerRow } from '../helpers/metered-answers.js';
import { orgWithKey, type OrgWithKey } from '../helpers/org-key.js';
import { startStack, type Stack } from '../helpers/stack.js';

const CHAIN = `plugins:
  - name: auth
  - name: meter
  - name: promptcache
`;

interface Orgs {
  stack: Stack;
  store: Store;
  acme: OrgWithKey;
  globex: OrgWithKey;
}

async function orgsOn(t: Test, upstream: string, sim: Parameters<typeof startStack>[0] = {}): Promise<Orgs> {
  const stack = await startStack({ ...sim, yaml: `${upstream === '' ? '' : `upstream:\n${upstream}\n`}${CHAIN}` });
  t.teardown(() => stack.close());
  const store = await stack.store();
  const suffix = Math.random().toString(36).slice(2);
  return {
    stack,
    store,
    acme: await orgWithKey(store, `acme-${suffix}`, { credits: 10 }),
    globex: await orgWithKey(store, `globex-${suffix}`, { credits: 10 }),
  };
}

interface Answer {
  id: string;
  usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

async function chat(stack: Stack, org: OrgWithKey, body: object = {}, cached?: number): Promise<Answer> {
  const response = await fetch(`${stack.baseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${org.key}`,
      ...(cached !== undefined ? { 'x-sim-usage': `cached=${cached}` } : {}),
    },
    body: JSON.stringify({
      model: 'qwen3-8b',
      max_tokens: 4,
      messages: [{ role: 'user', content: 'The same long question about the shipping rules, asked by anyone.' }],
      ...body,
    }),
  });
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  const { usage } = (await response.json()) as Omit<Answer, 'id'>;
  return { id: response.headers.get('x-request-id')!, usage };
}

/** The upstream bodies of the chat requests, in order. */
function upstreamBodies(stack: Stack): Array<Record<string, unknown>> {
  return stack.sim
    .requests()
    .filter((request) => request.path === '/v1/chat/completions')
    .map((request) => request.body as Record<string, unknown>);
}

t.test(
  'vLLM: each organization gets its own cache_salt on every request, which names no org id and replaces a client’s own',
  async (t) => {
    const { stack, acme, globex } = await orgsOn(t, '  extra_fields: [cache_salt]');
    await chat(stack, acme);
    await chat(stack, acme, { cache_salt: 'chosen-by-the-client' });
    await chat(stack, globex);
    const salts = upstreamBodies(stack).map((body) => body.cache_salt);
    t.equal(salts.length, 3);
    t.equal(salts[0], salts[1], 'the same organization, the same salt: its own prefixes are reused');
    t.not(salts[0], salts[2], 'another organization, another salt: its prefixes are not');
    for (const salt of salts) {
      t.match(salt, /^[A-Za-z0-9_-]{32}$/);
      t.notOk(String(salt).includes(acme.id) || String(salt).includes(globex.id), 'no org id reaches the upstream');
    }
  },
);

t.test(
  'regression: vLLM’s prefix cache reused one organization’s prefix for another, billed as its cache read; with salts it reuses only the organization’s own',
  async (t) => {
    const { stack, store, acme, globex } = await orgsOn(t, '');
    const long = { messages: [{ role: 'user', content: `Shared rules ${Math.random()}. `.repeat(30) }] };
    await chat(stack, acme, long);
    const own = await chat(stack, acme, long);
    const read = own.usage.prompt_tokens_details?.cached_tokens ?? 0;
    t.ok(read > 0, `the organization's own prefix is reused (${read} tokens)`);
    t.equal((await ledgerRow(store.db, own.id))?.cache_read_tokens, read, 'and billed as its read');
    const other = await chat(stack, globex, long);
    t.equal(other.usage.prompt_tokens_details?.cached_tokens, 0, "another organization's is not");
    t.equal((await ledgerRow(store.db, other.id))?.cache_read_tokens, 0);
  },
);

t.test('vLLM with salts: the upstream’s cached tokens are the caller’s own, billed and shown as reads', async (t) => {
  const { stack, store, acme } = await orgsOn(t, '  forward_headers: [x-sim-usage]');
  const answer = await chat(stack, acme, {}, 8);
  t.equal(answer.usage.prompt_tokens_details?.cached_tokens, 8);
  t.equal((await ledgerRow(store.db, answer.id))?.cache_read_tokens, 8);
});

t.test(
  'regression: with a shared upstream cache, another organization’s identical prefix was billed and shown as a cache read; it is plain input now',
  async (t) => {
    const { stack, store, globex } = await orgsOn(t, '  forward_headers: [x-sim-usage]\n  cache_isolation: off');
    const answer = await chat(stack, globex, {}, 8);
    t.equal(answer.usage.prompt_tokens_details?.cached_tokens, 0, 'not shown');
    const row = await ledgerRow(store.db, answer.id);
    t.equal(row?.cache_read_tokens, 0, 'not billed as a read');
    t.equal(row?.input_tokens, answer.usage.prompt_tokens, 'billed as plain input');
    t.notOk(
      upstreamBodies(stack).some((body) => 'cache_salt' in body),
      'off sends no salt',
    );
  },
);

t.test(
  'with a shared upstream cache, cache_control reads come from the organization’s own registry entries only',
  async (t) => {
    const { stack, acme, globex } = await orgsOn(t, '  forward_headers: [x-sim-usage]\n  cache_isolation: off');
    const body = {
      model: 'qwen3-8b',
      max_tokens: 4,
      system: [{ type: 'text', text: `Rules of ${Math.random()}. `.repeat(40), cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Which rule applies?' }],
    };
    const messages = async (org: OrgWithKey) => {
      const response = await fetch(`${stack.gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.key, 'x-sim-usage': 'cached=300' },
        body: JSON.stringify(body),
      });
      t.equal(response.status, 200);
      return ((await response.json()) as { usage: Record<string, number> }).usage;
    };
    const written = await messages(acme);
    t.equal(written.cache_read_input_tokens, 0, 'the first request writes, whatever the upstream says it cached');
    const prefix = written.cache_creation_input_tokens!;
    t.ok(prefix > 100, `the marked prefix (${prefix} tokens)`);
    const read = await messages(acme);
    t.equal(read.cache_read_input_tokens, prefix, "the organization's own entry is read");
    const other = await messages(globex);
    t.equal(other.cache_read_input_tokens, 0, "another organization's identical prefix is its own write, not a read");
    t.equal(other.cache_creation_input_tokens, prefix);
  },
);

t.test(
  "llama-server with cache_isolation no_reuse: cache_prompt false on every request, and its cached tokens (none) are the caller's own",
  async (t) => {
    const { stack, acme } = await orgsOn(t, '  cache_isolation: no_reuse', { sim: { flavor: 'llama-server' } });
    await chat(stack, acme);
    await chat(stack, acme);
    const bodies = upstreamBodies(stack);
    t.equal(bodies.length, 2);
    t.ok(bodies.every((body) => body.cache_prompt === false && !('cache_salt' in body)));
  },
);
