// openai-node 4.x cannot read named SSE events, which is what profile `openai` is for (docs/wire.md).
import OpenAI from 'openai-v4';
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({ yaml: 'wire: openai\n' });
});
t.teardown(() => stack.close());

const client = (): OpenAI => new OpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, maxRetries: 0 });

t.test('[openai] openai 4.x create returns the completion', async (t) => {
  const completion = await client().chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'echo: from v4' }],
  });
  t.equal(completion.choices[0]?.message.content, 'from v4');
  t.equal(completion.model, 'qwen3-8b');
});

t.test('[openai] openai 4.x streams the text and the usage', async (t) => {
  const stream = await client().chat.completions.create({
    model: 'qwen3-8b',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'echo: streamed by v4' }],
  });
  let text = '';
  let completionTokens = 0;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
  }
  t.equal(text, 'streamed by v4');
  t.ok(completionTokens > 0);
});

t.test('[openai] openai 4.x stream helper with a tool call', async (t) => {
  const runner = client().beta.chat.completions.stream({
    model: 'qwen3-8b',
    tools: [
      {
        type: 'function',
        function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
      },
    ],
    messages: [{ role: 'user', content: 'get_time zone=UTC' }],
  });
  const final = await runner.finalChatCompletion();
  t.equal(final.choices[0]?.message.tool_calls?.[0]?.function.name, 'get_time');
  t.same(JSON.parse(final.choices[0]?.message.tool_calls?.[0]?.function.arguments ?? '{}'), { zone: 'UTC' });
});
