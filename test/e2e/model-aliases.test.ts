// `model.aliases` (#14): names clients may send for the one model, such as Claude Code's haiku and
// sonnet ids. Each is listed in GET /v1/models as a model of its own; a request naming one is served by
// the model, answered under the model's id, billed as the model, and logged with the name it used; any
// other id is still a 404 in every dialect.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { DIALECTS, ledgerRow, PATHS, requestBody } from '../helpers/metered-answers.js';
import { requestLine, startStack, type Stack } from '../helpers/stack.js';
import type { Store } from '../../store/store.js';

const ALIASES = ['claude-haiku-5-5', 'claude-sonnet-5-5'];
let stack: Stack;
let store: Store;
let key: string;
t.before(async () => {
  stack = await startStack({
    yaml: `model:\n  aliases: [${ALIASES.join(', ')}]\n  max_context_tokens: 32768\nplugins:\n  - name: auth\n  - name: meter\n`,
  });
  store = await stack.store();
  await store.orgs.create('acme');
  await store.orgs.addCredits('acme', 100_000_000);
  key = (await store.keys.create('acme', 'tests')).key;
});
t.teardown(() => stack.close());

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
const naming = (dialect: DialectName, model: string): Record<string, unknown> => ({
  ...requestBody(dialect, false),
  model,
});

t.test('GET /v1/models lists the model, then each alias as a model of its own with the same limits', async (t) => {
  const body = (await (
    await fetch(`${stack.gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
  ).json()) as { data: Array<Record<string, unknown>>; first_id: string; last_id: string };
  t.same(
    body.data.map((model) => model.id),
    ['qwen3-8b', ...ALIASES],
  );
  for (const model of body.data)
    t.match(model, {
      object: 'model',
      type: 'model',
      display_name: 'Qwen3 8B',
      max_input_tokens: 32768,
      max_tokens: 8000,
    });
  t.match(body, { first_id: 'qwen3-8b', last_id: ALIASES.at(-1) });
  const openai = await new OpenAI({ apiKey: key, baseURL: stack.baseURL }).models.list();
  t.same(
    openai.data.map((model) => model.id),
    ['qwen3-8b', ...ALIASES],
    'the openai SDK lists them',
  );
  const anthropic = await new Anthropic({ apiKey: key, baseURL: stack.gateway.url }).models.list();
  t.same(
    anthropic.data.map((model) => [model.id, model.max_input_tokens, model.max_tokens]),
    ['qwen3-8b', ...ALIASES].map((id) => [id, 32768, 8000]),
    'the Anthropic SDK lists them with their limits',
  );
});

t.test("an alias is served in every dialect, answered under the model's id, and logged as sent", async (t) => {
  for (const dialect of DIALECTS) {
    const response = await post(PATHS[dialect], naming(dialect, ALIASES[0]!));
    t.equal(response.status, 200, dialect);
    t.match(await response.json(), { model: 'qwen3-8b' }, `${dialect}: the answer names the model that answered`);
    t.match(
      await requestLine(stack, response.headers.get('x-request-id')),
      { model: ALIASES[0] },
      `${dialect}: logged`,
    );
  }
});

t.test('an alias is billed as the model: the same request costs the same under either name', async (t) => {
  const costs: bigint[] = [];
  for (const model of ['qwen3-8b', ALIASES[1]!]) {
    const response = await post(PATHS.messages, naming('messages', model));
    await response.text();
    costs.push(BigInt((await ledgerRow(store.db, response.headers.get('x-request-id')!))!.cost_micros));
  }
  t.ok(costs[0]! > 0n);
  t.equal(costs[1], costs[0]);
});

t.test('count_tokens takes an alias', async (t) => {
  const response = await post('/v1/messages/count_tokens', {
    model: ALIASES[0],
    messages: [{ role: 'user', content: 'hello' }],
  });
  t.equal(response.status, 200);
  t.match(await response.json(), { input_tokens: Number });
});

t.test('any other id is still a 404 in every dialect, naming the model and its aliases', async (t) => {
  for (const dialect of DIALECTS) {
    const response = await post(PATHS[dialect], naming(dialect, 'claude-opus-5-5'));
    t.equal(response.status, 404, dialect);
    t.match(
      JSON.stringify(await response.json()),
      /serves 'qwen3-8b' \(also named 'claude-haiku-5-5', 'claude-sonnet-5-5'\)/,
      dialect,
    );
  }
});
