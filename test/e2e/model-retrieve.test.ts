// GET /v1/models/{id} (#26): one model of GET /v1/models, in OpenAI's shape for an OpenAI caller and in
// Anthropic's for an Anthropic caller (`anthropic-version` or `x-api-key`), so `client.models.retrieve()`
// works in both SDKs; an id the gateway does not serve is a 404 in the caller's error shape. The id is the
// rest of the path, so an alias with a `/` matches as the SDKs send it (`%2F`) and as typed raw.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

const SLASHED = 'Qwen/Qwen3-8B';
const ALIAS = 'claude-haiku-5-5';
let stack: Stack;
let key: string;
t.before(async () => {
  stack = await startStack({
    yaml: `model:\n  aliases: [${ALIAS}, ${SLASHED}]\n  max_context_tokens: 32768\nplugins:\n  - name: auth\n`,
  });
  const store = await stack.store();
  await store.orgs.create('acme');
  key = (await store.keys.create('acme', 'tests')).key;
});
t.teardown(() => stack.close());

const openai = (): OpenAI => new OpenAI({ apiKey: key, baseURL: stack.baseURL, maxRetries: 0 });
const anthropic = (): Anthropic => new Anthropic({ apiKey: key, baseURL: stack.gateway.url, maxRetries: 0 });
const get = (path: string, headers: Record<string, string>): Promise<Response> =>
  fetch(stack.gateway.url + path, { headers });

t.test("the openai SDK retrieves the model in OpenAI's shape, with the list's fields", async (t) => {
  const model = await openai().models.retrieve('qwen3-8b');
  t.same(model, {
    id: 'qwen3-8b',
    object: 'model',
    type: 'model',
    created: model.created,
    created_at: new Date(model.created * 1000).toISOString(),
    owned_by: model.owned_by,
    display_name: 'Qwen3 8B',
    max_input_tokens: 32768,
    max_tokens: 8000,
  });
  t.type(model.created, 'number');
  t.type(model.owned_by, 'string');
  const listed = await (await get('/v1/models', { authorization: `Bearer ${key}` })).json();
  t.same((listed as { data: unknown[] }).data[0], model, 'the same entry as in GET /v1/models');
});

t.test('the openai SDK retrieves an alias under its own id, one with a slash included', async (t) => {
  t.match(await openai().models.retrieve(ALIAS), { id: ALIAS, object: 'model' });
  t.match(await openai().models.retrieve(SLASHED), { id: SLASHED, object: 'model' });
});

t.test("an unknown id is the openai SDK's NotFoundError in the chat error shape", async (t) => {
  const error = await openai()
    .models.retrieve('gpt-5')
    .catch((caught: unknown) => caught);
  t.ok(error instanceof OpenAI.NotFoundError);
  t.match((error as InstanceType<typeof OpenAI.NotFoundError>).error, {
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
    message: /'gpt-5' does not exist; this gateway serves 'qwen3-8b'/,
  });
});

t.test("the Anthropic SDK retrieves the model in Anthropic's shape (created_at in RFC 3339)", async (t) => {
  const model = await anthropic().models.retrieve('qwen3-8b');
  const { _request_id: _requestId, ...fields } = model as typeof model & { _request_id?: unknown };
  t.same(fields, {
    type: 'model',
    id: 'qwen3-8b',
    display_name: 'Qwen3 8B',
    created_at: model.created_at,
    max_input_tokens: 32768,
    max_tokens: 8000,
  });
  t.match(model.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
});

t.test('the Anthropic SDK retrieves an alias, one with a slash included', async (t) => {
  t.match(await anthropic().models.retrieve(ALIAS), { type: 'model', id: ALIAS });
  t.match(await anthropic().models.retrieve(SLASHED), { type: 'model', id: SLASHED });
});

t.test("an unknown id is the Anthropic SDK's NotFoundError in Anthropic's error shape", async (t) => {
  const error = await anthropic()
    .models.retrieve('claude-opus-4-1')
    .catch((caught: unknown) => caught);
  t.ok(error instanceof Anthropic.NotFoundError);
  t.match((error as InstanceType<typeof Anthropic.NotFoundError>).error, {
    type: 'error',
    error: { type: 'not_found_error', message: /'claude-opus-4-1' was not found; this gateway serves 'qwen3-8b'/ },
  });
});

t.test('a bearer key with anthropic-version is an Anthropic caller too', async (t) => {
  const response = await get('/v1/models/qwen3-8b', {
    authorization: `Bearer ${key}`,
    'anthropic-version': '2023-06-01',
  });
  t.equal(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  t.equal(body.type, 'model');
  t.notOk('object' in body, "no OpenAI field in Anthropic's shape");
});

t.test('an id with a slash matches sent raw as well as percent-encoded', async (t) => {
  for (const path of ['/v1/models/Qwen/Qwen3-8B', '/v1/models/Qwen%2FQwen3-8B']) {
    const response = await get(path, { authorization: `Bearer ${key}` });
    t.equal(response.status, 200, path);
    t.match(await response.json(), { id: SLASHED }, path);
  }
});

t.test('a malformed percent-escape is an unknown id (404), not a server error', async (t) => {
  const response = await get('/v1/models/qwen%E0%A4%A', { authorization: `Bearer ${key}` });
  t.equal(response.status, 404);
  t.match(await response.json(), { error: { code: 'model_not_found' } });
});

t.test("auth is the same as for GET /v1/models: no key is a 401, in the caller's error shape", async (t) => {
  const openaiCaller = await get('/v1/models/qwen3-8b', {});
  t.equal(openaiCaller.status, 401);
  t.match(await openaiCaller.json(), { error: { type: 'invalid_request_error' } });
  const anthropicCaller = await get('/v1/models/qwen3-8b', { 'anthropic-version': '2023-06-01' });
  t.equal(anthropicCaller.status, 401);
  t.match(await anthropicCaller.json(), { type: 'error', error: { type: 'authentication_error' } });
});

t.test('only GET: another method is a 405', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/models/qwen3-8b`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  });
  t.equal(response.status, 405);
});
