// Service tiers (issue #31; docs/service-tiers.md): `service_tier` on chat and responses, resolved against the
// operator's `service_tiers` and the organization's settings, priced by the tier's percentage in the integer
// ledger (the hold too), sent to vLLM as the tier's `priority`, and echoed as the tier served.
import t from 'tap';
import { startSim } from '../../sim/server.js';
import type { Store } from '../../store/store.js';
import { Pricer } from '../../plugins/meter/price.js';
import { ledgerRow } from '../helpers/metered-answers.js';
import { orgWithKey } from '../helpers/org-key.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { DEFAULT_PRICES } from '../kit/prices.js';
import { sseJson } from '../kit/sse-reader.js';

// Whole micro-credits per token, so that a list price is an exact integer and each tier's share of it is checked exactly.
const PRICING = { ...DEFAULT_PRICES, input_per_mtok: 1, output_per_mtok: 3 };
const YAML = `pricing:
  input_per_mtok: 1
  output_per_mtok: 3
service_tiers:
  flex: { price_percent: 50, upstream_priority: 10 }
  priority: { price_percent: 200, upstream_priority: -5 }
plugins:
  - name: auth
  - name: meter
`;

let stack: Stack;
let store: Store;
let proxy: RecordingProxy;
let sim: Awaited<ReturnType<typeof startSim>>;
let acme: { id: string; key: string };

t.before(async () => {
  sim = await startSim({});
  proxy = await startRecordingProxy(sim.url);
  stack = await startStack({ yaml: YAML, upstreamUrls: [`${proxy.url}/v1`], env: await freshStoreEnvironment() });
  store = await stack.store();
  acme = await orgWithKey(store, 'acme', { credits: 100 });
});
t.teardown(async () => {
  await stack.close();
  await proxy.close();
  await sim.close();
});

const chat = (tier: string | undefined, extra: Record<string, unknown> = {}, key = acme.key): Promise<Response> =>
  post(
    '/v1/chat/completions',
    {
      model: 'qwen3-8b',
      messages: [{ role: 'user', content: 'Say tiers' }],
      max_tokens: 16,
      ...(tier === undefined ? {} : { service_tier: tier }),
      ...extra,
    },
    key,
  );

const post = (path: string, body: unknown, key = acme.key): Promise<Response> =>
  fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-gateway-wire': 'openai' },
    body: JSON.stringify(body),
  });

/** The upstream body of the request the gateway sent with this id. */
const upstreamBody = async (id: string): Promise<Record<string, unknown>> =>
  (await proxy.recorded((exchange) => exchange.headers['x-request-id'] === id)).body as Record<string, unknown>;

t.test(
  'a service_tier other than auto, default, flex or priority is a 400 naming service_tier, in each dialect',
  async (t) => {
    const onChat = await chat('scale');
    t.equal(onChat.status, 400);
    t.match(await onChat.json(), { error: { param: 'service_tier', message: /service_tier/ } });
    const onResponses = await post('/v1/responses', { model: 'qwen3-8b', input: 'x', service_tier: 'scale' });
    t.equal(onResponses.status, 400);
    t.match(await onResponses.json(), { error: { param: 'service_tier' } });
  },
);

t.test('a tier the organization is not allowed is a 400 naming service_tier and the tier', async (t) => {
  const limited = await orgWithKey(store, 'limited', { credits: 10 });
  await store.orgs.setServiceTiers(limited.id, { defaultTier: null, allowed: ['flex'] });
  const refused = await chat('priority', {}, limited.key);
  t.equal(refused.status, 400);
  t.match(await refused.json(), {
    error: { param: 'service_tier', code: 'service_tier_unavailable', message: /'priority'/ },
  });
  t.equal((await chat('flex', {}, limited.key)).status, 200, 'a tier it is allowed is served');
  t.equal((await chat('default', {}, limited.key)).status, 200, 'default is every organization’s');
});

t.test('a tier the operator does not offer is a 400 naming service_tier and the tier', async (t) => {
  const bare = await startStack({
    yaml: 'plugins:\n  - name: auth\n  - name: meter\n',
    env: await freshStoreEnvironment(),
  });
  t.teardown(() => bare.close());
  const org = await orgWithKey(await bare.store(), 'acme', { credits: 10 });
  const refused = await fetch(`${bare.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${org.key}` },
    body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'x' }], service_tier: 'flex' }),
  });
  t.equal(refused.status, 400);
  t.match(await refused.json(), { error: { param: 'service_tier', message: /'flex' is not offered/ } });
});

t.test('auto, or no service_tier, is served at the organization’s default tier (else default)', async (t) => {
  const flexible = await orgWithKey(store, 'flexible', { credits: 10 });
  await store.orgs.setServiceTiers(flexible.id, { defaultTier: 'flex', allowed: null });
  for (const tier of ['auto', undefined]) {
    const response = await chat(tier, {}, flexible.key);
    t.equal(response.status, 200);
    t.equal(((await response.json()) as { service_tier: string }).service_tier, 'flex', `${tier}: flex, and said`);
    t.equal((await ledgerRow(store.db, response.headers.get('x-request-id')!))?.service_tier, 'flex');
  }
  const plain = await chat('auto');
  t.equal(
    ((await plain.json()) as { service_tier: string }).service_tier,
    'default',
    'an org with no default: default',
  );
});

t.test(
  'the ledger charges the served tier’s price_percent of the list cost, rounded up once, and the balance moves by exactly that',
  async (t) => {
    for (const [tier, percent] of [
      ['default', 100],
      ['flex', 50],
      ['priority', 200],
    ] as const) {
      const before = (await store.orgs.get(acme.id)).balanceMicros;
      const response = await chat(tier);
      t.equal(response.status, 200);
      await response.json();
      const row = (await ledgerRow(store.db, response.headers.get('x-request-id')!))!;
      const usage = {
        input: Number(row.input_tokens),
        output: Number(row.output_tokens),
        cacheRead: 0,
        cacheWrite5m: 0,
        cacheWrite1h: 0,
        searches: 0,
      };
      const list = usage.input * 1 + usage.output * 3;
      const expected = Math.ceil((list * percent) / 100);
      t.equal(Number(row.cost_micros), expected, `${tier}: ${percent}% of ${list}`);
      t.equal(Number(row.cost_micros), new Pricer(PRICING, 0, percent).cost(usage));
      t.equal(row.service_tier, tier);
      t.equal(
        (await store.orgs.get(acme.id)).balanceMicros,
        before - expected,
        `${tier}: the balance moved by the cost`,
      );
    }
  },
);

t.test('the hold is scaled by the tier’s price_percent like the cost', async (t) => {
  const holds: Record<string, number> = {};
  for (const tier of ['default', 'flex', 'priority']) {
    const response = await chat(tier);
    await response.json();
    holds[tier] = Number((await ledgerRow(store.db, response.headers.get('x-request-id')!))!.hold_micros);
  }
  t.ok(holds.default! > 0);
  t.equal(holds.flex, Math.ceil(holds.default! / 2), 'flex: half, rounded up');
  t.equal(holds.priority, holds.default! * 2, 'priority: double');
});

t.test('a live request reaches vLLM with its tier’s upstream_priority, and none without one', async (t) => {
  for (const [tier, priority] of [
    ['priority', -5],
    ['flex', 10],
    ['default', undefined],
    [undefined, undefined],
  ] as const) {
    const response = await chat(tier);
    await response.json();
    const body = await upstreamBody(response.headers.get('x-request-id')!);
    t.equal(body.priority, priority, `${tier ?? 'none'}: priority ${priority}`);
    t.notOk('service_tier' in body, 'service_tier itself is never sent upstream');
  }
});

t.test(
  'chat says the tier served in its body and on every stream chunk; a request naming none is unchanged',
  async (t) => {
    const body = (await (await chat('priority')).json()) as Record<string, unknown>;
    t.equal(body.service_tier, 'priority');
    const auto = (await (await chat('auto')).json()) as Record<string, unknown>;
    t.equal(auto.service_tier, 'default', 'auto: the tier actually served');
    const none = (await (await chat(undefined)).json()) as Record<string, unknown>;
    t.notOk('service_tier' in none, 'no service_tier asked, default served: the body as before');
    const stream = await chat('flex', { stream: true, stream_options: { include_usage: true } });
    const chunks = sseJson<Record<string, unknown>>(await stream.text());
    t.ok(chunks.length > 2);
    for (const chunk of chunks) t.equal(chunk.service_tier, 'flex');
  },
);

t.test('the responses object says the tier served, in the body and the stream', async (t) => {
  const body = (await (
    await post('/v1/responses', { model: 'qwen3-8b', input: 'x', service_tier: 'priority' })
  ).json()) as {
    service_tier: string;
  };
  t.equal(body.service_tier, 'priority');
  const auto = (await (
    await post('/v1/responses', { model: 'qwen3-8b', input: 'x', service_tier: 'auto' })
  ).json()) as {
    service_tier: string;
  };
  t.equal(auto.service_tier, 'default');
  const stream = await post('/v1/responses', { model: 'qwen3-8b', input: 'x', service_tier: 'flex', stream: true });
  const events = sseJson<{ type: string; response?: { service_tier: string } }>(await stream.text());
  const objects = events.filter((event) => event.response !== undefined);
  t.ok(objects.length >= 2);
  for (const event of objects) t.equal(event.response!.service_tier, 'flex', event.type);
});

t.test('the books balance after requests at every tier', async (t) => {
  const { auditBalances } = await import('../../store/balance-audit.js');
  for (const audit of await auditBalances(store.db)) t.equal(audit.discrepancyMicros, 0, audit.orgId);
});
