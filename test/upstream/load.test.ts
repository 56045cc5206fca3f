// Many answers at once in front of a real llama-server (four slots sharing one 4096-token KV cache, its
// default): twenty concurrent streams through the real SDKs all complete with their usage, and a request
// is bounded by its slot's share of the cache, so concurrent long answers never die mid-stream.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { ledgerCheck, startLlamaStack, type LlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';

t.setTimeout(TIER_TIMEOUT_MS);

let llama: LlamaStack;
t.before(async () => {
  llama = await startLlamaStack(t, { ignoreEos: true });
});

const QUESTION = 'What is the weather in Paris?';

async function chatStream(tokens: number): Promise<{ finish: string | null; output: number | undefined }> {
  const client = new OpenAI({ baseURL: `${llama.url}/v1`, apiKey: llama.key, maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: QUESTION }],
    max_tokens: tokens,
    stream: true,
    stream_options: { include_usage: true },
  });
  let finish: string | null = null;
  let output: number | undefined;
  for await (const chunk of stream) {
    finish = chunk.choices[0]?.finish_reason ?? finish;
    output = chunk.usage?.completion_tokens ?? output;
  }
  return { finish, output };
}

async function messagesStream(tokens: number): Promise<{ finish: string | null; output: number | undefined }> {
  const client = new Anthropic({ baseURL: llama.url, apiKey: llama.key, maxRetries: 0 });
  const message = await client.messages
    .stream({ model: 'qwen3-8b', max_tokens: tokens, messages: [{ role: 'user', content: QUESTION }] })
    .finalMessage();
  return { finish: message.stop_reason, output: message.usage.output_tokens };
}

t.test(
  'twenty concurrent streams (ten chat, ten messages, through the SDKs) all complete with their usage',
  async (t) => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? chatStream(200) : messagesStream(200))),
    );
    answers.forEach((answer, index) => {
      t.same(answer, { finish: index % 2 === 0 ? 'length' : 'max_tokens', output: 200 }, `stream ${index}`);
    });
  },
);

t.test(
  "regression: four concurrent 2000-token answers died at ~1024 tokens: a request is bounded by its slot's share of the shared KV cache",
  async (t) => {
    const response = await fetch(`${llama.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
      body: JSON.stringify({ model: 'qwen3-8b', max_tokens: 2000, messages: [{ role: 'user', content: QUESTION }] }),
    });
    t.equal(response.status, 400, 'refused before the server starts it');
    t.match(await response.text(), /max_tokens/);
    // What fits the share runs to its end, four at a time.
    const answers = await Promise.all([chatStream(900), messagesStream(900), chatStream(900), messagesStream(900)]);
    t.same(
      answers.map((answer) => answer.output),
      [900, 900, 900, 900],
    );
  },
);

t.test('the ledger balances', async (t) => {
  const checked = ledgerCheck(llama.stack);
  t.equal(checked.code, 0, checked.out + checked.err);
});
