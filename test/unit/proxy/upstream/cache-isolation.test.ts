// Keeping the upstream's prompt cache apart between organizations (proxy/upstream/cache-isolation.ts):
// a salt per organization where the server has one, no reuse on llama-server when asked, and which
// cached tokens can then be trusted as the caller's own.
import t from 'tap';
import {
  CacheIsolator,
  defaultCacheIsolation,
  honours,
  CACHE_ISOLATIONS,
} from '../../../../proxy/upstream/cache-isolation.js';
import { UPSTREAM_FLAVORS } from '../../../../proxy/upstream/request-fields.js';

const SECRET = Buffer.alloc(32, 7);

t.test('per_org: each organization has its own salt, the same every time and on every node', async (t) => {
  const isolator = new CacheIsolator('per_org', SECRET);
  const a = isolator.fieldsFor('org_a');
  t.same(a, { cache_salt: isolator.saltOf('org_a') });
  t.same(new CacheIsolator('per_org', Buffer.from(SECRET)).fieldsFor('org_a'), a, 'the same secret, the same salt');
  t.not(isolator.saltOf('org_a'), isolator.saltOf('org_b'));
  t.not(new CacheIsolator('per_org', Buffer.alloc(32, 8)).saltOf('org_a'), isolator.saltOf('org_a'), 'another secret');
});

t.test("an organization's salted fields are made once, and each still its own past the remembered many", async (t) => {
  const isolator = new CacheIsolator('per_org', SECRET);
  const first = isolator.fieldsFor('org_a');
  t.equal(isolator.fieldsFor('org_a'), first, 'the same fields, not an HMAC a request');
  for (let index = 0; index < 10_050; index++) isolator.fieldsFor(`org_${index}`);
  t.same(isolator.fieldsFor('org_a'), { cache_salt: isolator.saltOf('org_a') }, 'made again once forgotten');
  t.same(isolator.fieldsFor('org_17'), { cache_salt: isolator.saltOf('org_17') });
});

t.test(
  'a salt tells the upstream nothing of the org id, and fits every server (non-empty, short, no / or @)',
  async (t) => {
    const salt = new CacheIsolator('per_org', SECRET).saltOf('org_0123456789');
    t.match(salt, /^[A-Za-z0-9_-]{32}$/);
    t.notMatch(salt, /org|0123456789/);
  },
);

t.test('per_org without a caller (no auth plugin) sends nothing: those requests are one tenant', async (t) => {
  t.equal(new CacheIsolator('per_org', SECRET).fieldsFor(undefined), undefined);
});

t.test("no_reuse: llama-server's cache_prompt false on every request, whoever calls", async (t) => {
  const isolator = new CacheIsolator('no_reuse', SECRET);
  t.same(isolator.fieldsFor('org_a'), { cache_prompt: false });
  t.same(isolator.fieldsFor(undefined), { cache_prompt: false });
});

t.test("off sends nothing, and only then are the upstream cached tokens not the caller's own", async (t) => {
  t.equal(new CacheIsolator('off', SECRET).fieldsFor('org_a'), undefined);
  t.same(
    CACHE_ISOLATIONS.map((isolation) => [isolation, new CacheIsolator(isolation, SECRET).trustsCachedTokens]),
    [
      ['per_org', true],
      ['no_reuse', true],
      ['off', false],
    ],
  );
});

t.test('per_org by default where the server has a salt (vLLM, SGLang), off elsewhere', async (t) => {
  t.same(
    UPSTREAM_FLAVORS.map((flavor) => [flavor, defaultCacheIsolation(flavor)]),
    [
      ['vllm', 'per_org'],
      ['llama-server', 'off'],
      ['sglang', 'per_org'],
      ['tgi', 'off'],
      ['ollama', 'off'],
      ['openai', 'off'],
    ],
  );
});

t.test('which server honours which isolation', async (t) => {
  t.same(
    UPSTREAM_FLAVORS.filter((flavor) => honours(flavor, 'per_org')),
    ['vllm', 'sglang'],
  );
  t.same(
    UPSTREAM_FLAVORS.filter((flavor) => honours(flavor, 'no_reuse')),
    ['llama-server'],
  );
  t.ok(UPSTREAM_FLAVORS.every((flavor) => honours(flavor, 'off')));
});
