// The sim's llama-server flavor: the routes beside chat completions, as llama-server has them (and
// not vLLM's), one rule per test.
import t from 'tap';
import { encode } from '../../sim/qwen3-prompt.js';
import { llamaComplete, llamaSimFor } from './llama-client.js';
import { post } from './sim-client.js';

const getJson = async (url: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

t.test(
  'GET /props: n_ctx in default_generation_settings, total_slots, model_path, chat_template, build_info',
  async (t) => {
    const sim = await llamaSimFor(t, { maxModelLen: 4096, slots: 3, servedModel: 'tiny-qwen3.gguf' });
    const { status, body } = await getJson(`${sim.url}/props`);
    t.equal(status, 200);
    t.match(body, {
      default_generation_settings: { n_ctx: 4096, params: { n_predict: -1 } },
      total_slots: 3,
      model_path: 'tiny-qwen3.gguf',
      build_info: 'b1-de3ff81',
      is_sleeping: false,
    });
    t.match(body.chat_template, /<\|im_start\|>/);
  },
);

t.test('GET /health and /v1/health: {"status":"ok"}', async (t) => {
  const sim = await llamaSimFor(t);
  t.same(await getJson(`${sim.url}/health`), { status: 200, body: { status: 'ok' } });
  t.same(await getJson(`${sim.url}/v1/health`), { status: 200, body: { status: 'ok' } });
});

t.test('GET /v1/models: id = the model path, owned_by llamacpp, meta with n_ctx and n_ctx_train', async (t) => {
  const sim = await llamaSimFor(t, { maxModelLen: 4096, servedModel: 'tiny-qwen3.gguf' });
  const { body } = await getJson(`${sim.url}/v1/models`);
  t.match(body, {
    object: 'list',
    models: [{ name: 'tiny-qwen3.gguf', model: 'tiny-qwen3.gguf' }],
    data: [{ id: 'tiny-qwen3.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx: 4096, n_ctx_train: 40960 } }],
  });
  t.notOk('max_model_len' in ((body.data as unknown[])[0] as object), "no vLLM's max_model_len");
  t.same((await getJson(`${sim.url}/models`)).body.data, body.data);
});

t.test('POST /tokenize takes {content} and answers {tokens}, special tokens parsed', async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(sim, '/tokenize', { content: 'Hello<|im_end|>', add_special: true, parse_special: true });
  t.same(await res.json(), { tokens: encode('Hello<|im_end|>') });
  const pieces = await post(sim, '/tokenize', { content: 'Hi', with_pieces: true });
  t.same(await pieces.json(), { tokens: [{ id: encode('Hi')[0], piece: 'Hi' }] });
});

t.test("POST /tokenize with vLLM's body (messages, no content) answers no tokens", async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(sim, '/tokenize', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
  t.same(await res.json(), { tokens: [] });
});

t.test("POST /apply-template: the chat endpoint's prompt, whose tokens are the answer's prompt_tokens", async (t) => {
  const sim = await llamaSimFor(t);
  const request = {
    messages: [{ role: 'user', content: 'echo: Hello' }],
    chat_template_kwargs: { enable_thinking: false },
  };
  const { prompt } = (await (await post(sim, '/apply-template', request)).json()) as { prompt: string };
  t.equal(prompt, '<|im_start|>user\necho: Hello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  const body = await llamaComplete(sim, request);
  t.equal(body.usage.prompt_tokens, encode(prompt).length);
});

t.test('POST /detokenize takes {tokens} and answers {content}', async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(sim, '/detokenize', { tokens: encode('Hello world') });
  t.same(await res.json(), { content: 'Hello world' });
});

t.test('POST /chat/completions answers as /v1/chat/completions', async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(sim, '/chat/completions', { messages: [{ role: 'user', content: 'echo: Hi' }] });
  t.equal(res.status, 200);
  t.match(await res.json(), { object: 'chat.completion', choices: [{ message: { content: 'Hi' } }] });
});

t.test("vLLM's own routes are not there: 404 File Not Found in llama-server's shape", async (t) => {
  const sim = await llamaSimFor(t);
  for (const path of ['/version', '/v1/completions/nothing', '/metrics']) {
    t.same(await getJson(`${sim.url}${path}`), {
      status: 404,
      body: { error: { message: 'File Not Found', type: 'not_found_error', code: 404 } },
    });
  }
  t.equal((await fetch(`${sim.url}/v1/chat/completions`)).status, 404, 'a GET on the chat path too');
});

t.test('the API key: Bearer, bare or X-Api-Key; 401 "Invalid API Key" else; /health stays open', async (t) => {
  const sim = await llamaSimFor(t, { apiKey: 'secret' });
  const chat = (headers: Record<string, string>) =>
    post(sim, '/v1/chat/completions', { messages: [{ role: 'user', content: 'echo: Hi' }] }, headers);
  t.equal((await chat({ authorization: 'Bearer secret' })).status, 200);
  t.equal((await chat({ authorization: 'secret' })).status, 200);
  t.equal((await chat({ 'x-api-key': 'secret' })).status, 200);
  const refused = await chat({ authorization: 'Bearer wrong' });
  t.equal(refused.status, 401);
  t.same(await refused.json(), { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });
  t.equal((await fetch(`${sim.url}/props`)).status, 401, '/props needs the key');
  t.equal((await fetch(`${sim.url}/health`)).status, 200);
});
