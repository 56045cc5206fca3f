// The model id is checked before every other field of the body, in every dialect (#26): a client whose
// default is over a limit (LangChain's `ChatAnthropic(model="claude-opus-4-1")` sends max_tokens 32000)
// and that names a model the gateway does not serve must hear that the model is not found, not that its
// max_tokens is too large. A missing or non-string `model` is still a 400 naming the field.
import { once } from 'node:events';
import t from 'tap';
import WebSocket from 'ws';
import { startStack, type Stack } from '../helpers/stack.js';

const UNKNOWN = 'claude-opus-4-1';
const OVER = 10_000_000;
const hello = [{ role: 'user', content: 'hello' }];
let stack: Stack;
t.before(async () => {
  stack = await startStack();
});
t.teardown(() => stack.close());

const post = async (path: string, body: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};

const CHAT_NOT_FOUND = { error: { type: 'invalid_request_error', code: 'model_not_found', param: 'model' } };
const MESSAGES_NOT_FOUND = { type: 'error', error: { type: 'not_found_error', message: new RegExp(UNKNOWN) } };

t.test('an unknown model with an out-of-range max_tokens is a 404, not a 400', async (t) => {
  t.test('chat', async (t) => {
    const answer = await post('/v1/chat/completions', { model: UNKNOWN, messages: hello, max_tokens: OVER });
    t.equal(answer.status, 404);
    t.match(answer.body, CHAT_NOT_FOUND);
  });
  t.test("messages (ChatAnthropic's max_tokens 32000)", async (t) => {
    const answer = await post('/v1/messages', { model: UNKNOWN, max_tokens: 32000, messages: hello });
    t.equal(answer.status, 404);
    t.match(answer.body, MESSAGES_NOT_FOUND);
  });
  t.test('messages count_tokens (a max_tokens it does not take)', async (t) => {
    const answer = await post('/v1/messages/count_tokens', { model: UNKNOWN, max_tokens: 32000, messages: hello });
    t.equal(answer.status, 404);
    t.match(answer.body, MESSAGES_NOT_FOUND);
  });
  t.test('responses', async (t) => {
    const answer = await post('/v1/responses', { model: UNKNOWN, input: 'hello', max_output_tokens: OVER });
    t.equal(answer.status, 404);
    t.match(answer.body, CHAT_NOT_FOUND);
  });
  t.test("responses over its WebSocket mode, before the message's own fields too", async (t) => {
    const ws = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}/v1/responses`);
    await once(ws, 'open');
    for (const fields of [{}, { previous_response_id: 'resp_elsewhere' }, { stream: false }]) {
      ws.send(
        JSON.stringify({ type: 'response.create', model: UNKNOWN, input: 'hello', max_output_tokens: OVER, ...fields }),
      );
      const [data] = (await once(ws, 'message')) as [Buffer];
      t.match(JSON.parse(data.toString()), { type: 'error', status: 404, ...CHAT_NOT_FOUND }, JSON.stringify(fields));
    }
    ws.close();
  });
});

t.test('the other fields are still checked after the model for a served model', async (t) => {
  const answer = await post('/v1/messages', { model: 'qwen3-8b', max_tokens: 32000, messages: hello });
  t.equal(answer.status, 400);
  t.match(answer.body, { type: 'error', error: { type: 'invalid_request_error', message: /max_tokens/ } });
});

t.test('a missing or non-string model is still a 400 naming the field, in every dialect', async (t) => {
  const bodies: Array<[string, Record<string, unknown>]> = [
    ['/v1/chat/completions', { messages: hello }],
    ['/v1/messages', { max_tokens: 10, messages: hello }],
    ['/v1/messages/count_tokens', { messages: hello }],
    ['/v1/responses', { input: 'hello' }],
  ];
  for (const [path, body] of bodies)
    for (const model of [undefined, 42]) {
      const answer = await post(path, model === undefined ? body : { ...body, model });
      t.equal(answer.status, 400, `${path}, model ${String(model)}`);
      t.match(JSON.stringify(answer.body), /'model'/, `${path}, model ${String(model)}: names the field`);
    }
});
