// What the gateway learns about its upstream at start, seen from a client: the tokenizer follows the
// detected llama-server, a request is bounded by llama-server's shared KV cache, and GET /ready asks the
// upstream when server.ready_checks_upstream is on. The upstream is a fake of the server's info and
// tokenize endpoints (test/fakes/inference-servers.ts), or the sim.
import t from 'tap';
import { TestClock } from '../helpers/clock.js';
import { startStack } from '../helpers/stack.js';
import { startInferenceServer } from '../fakes/inference-servers.js';

const json = { 'content-type': 'application/json' };

t.test(
  'regression: tokenizer.source upstream in front of llama-server gave 502 on every count_tokens; the counter now follows the detected flavor',
  async (t) => {
    const llama = await startInferenceServer('llama-server', { slots: 1 });
    const stack = await startStack({ upstreamUrls: [llama.baseUrl], yaml: 'tokenizer:\n  source: upstream\n' });
    t.teardown(async () => {
      await stack.close();
      await llama.close();
    });
    const response = await fetch(`${stack.gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hello there' }] }),
    });
    t.equal(response.status, 200);
    t.same(await response.json(), { input_tokens: 4 }, "the fake's words of llama-server's rendered prompt");
    t.ok(llama.requests.some((request) => request.method === 'POST' && request.path === '/apply-template'));
  },
);

t.test(
  "regression: four concurrent answers died at ~1024 tokens while the gateway accepted 4096: a request is bounded by n_ctx / total_slots of llama-server's shared KV cache",
  async (t) => {
    const llama = await startInferenceServer('llama-server', { context: 4096, slots: 4 });
    const stack = await startStack({ upstreamUrls: [llama.baseUrl] });
    t.teardown(async () => {
      await stack.close();
      await llama.close();
    });
    const models = (await (await fetch(`${stack.baseURL}/models`)).json()) as {
      data: Array<{ max_input_tokens?: number }>;
    };
    t.equal(models.data[0]?.max_input_tokens, 1024);
    const response = await fetch(`${stack.baseURL}/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'qwen3-8b', max_tokens: 2000, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    t.equal(response.status, 400);
    t.match(await response.text(), /1024/);
    t.match(
      await stack.logged((entry) => entry.total_slots === 4 && entry.n_ctx === 4096),
      { max_context_tokens: 1024, msg: /shared by its 4 slots/ },
      'one line at start says so, and how to change it',
    );
  },
);

t.test(
  'regression: /ready stayed 200 with the upstream dead; with server.ready_checks_upstream it is 503 naming the upstream, and 200 again once it is back',
  async (t) => {
    const clock = new TestClock();
    const stack = await startStack({ yaml: 'server:\n  ready_checks_upstream: true\n', now: clock.now });
    t.teardown(() => stack.close());
    const ready = async (): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${stack.gateway.url}/ready`);
      return { status: response.status, body: await response.json() };
    };
    t.same(await ready(), { status: 200, body: { status: 'ready', checks: { upstream: 'ok', draining: false } } });
    await stack.sim.setRefusing(true);
    clock.advance(1000);
    t.same(await ready(), {
      status: 503,
      body: { status: 'unready', checks: { upstream: 'unreachable', draining: false } },
    });
    await stack.sim.setRefusing(false);
    clock.advance(1000);
    t.equal((await ready()).status, 200);
  },
);

t.test('without server.ready_checks_upstream (the default), /ready does not ask the upstream', async (t) => {
  const stack = await startStack();
  t.teardown(() => stack.close());
  await stack.sim.setRefusing(true);
  const response = await fetch(`${stack.gateway.url}/ready`);
  t.equal(response.status, 200);
  t.same(await response.json(), { status: 'ready', checks: { draining: false } });
});
