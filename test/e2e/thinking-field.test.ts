// upstream.thinking_field: where the client's thinking switch goes, by the operator's choice.
import t from 'tap';
import { startStack } from '../helpers/stack.js';

const ask = (url: string): Promise<Response> =>
  fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify({
      model: 'qwen3-8b',
      max_tokens: 100,
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: 'echo: Hi' }],
    }),
  });

t.test("thinking_field '' sends the switch nowhere", async (t) => {
  const stack = await startStack({ yaml: "upstream:\n  thinking_field: ''\n" });
  t.teardown(() => stack.close());
  t.equal((await ask(stack.gateway.url)).status, 200);
  const body = stack.sim.requests().at(-1)!.body as Record<string, unknown>;
  t.equal(body.chat_template_kwargs, undefined);
  t.equal(body.enable_thinking, undefined, 'nor the gateway-side field itself');
});

t.test('thinking_field names another field, beside what an extra field of the client set', async (t) => {
  const stack = await startStack({
    yaml: 'upstream:\n  thinking_field: chat_template_kwargs.thinking\n  extra_fields: [chat_template_kwargs]\n',
  });
  t.teardown(() => stack.close());
  const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'qwen3-8b',
      enable_thinking: true,
      chat_template_kwargs: { custom: 1 },
      messages: [{ role: 'user', content: 'echo: Hi' }],
    }),
  });
  t.equal(response.status, 200);
  const body = stack.sim.requests().at(-1)!.body as Record<string, unknown>;
  t.same(body.chat_template_kwargs, { custom: 1, thinking: true });
});
