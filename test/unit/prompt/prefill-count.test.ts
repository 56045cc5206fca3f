// A prefill's prompt is a continuation: the last (assistant) turn left open, no generation prompt after
// it, as vLLM renders it with `continue_final_message` (transformers cuts the rendered chat after the
// message's text) and llama-server renders its own continuation. The counters count that prompt.
import t from 'tap';
import { createMessagesDecoders } from '../../../dialects/messages/decode.js';
import { ChatTemplate } from '../../../prompt/chat-template.js';
import { PromptError } from '../../../prompt/prompt-error.js';
import { startSim } from '../../../sim/server.js';
import { qwen3 } from '../../../sim/qwen3-prompt.js';
import { promptInput } from '../../../tokenizer/request-prompt.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';
import { SERVED_MODEL, tokenizerConfig } from '../tokenizer/sample-requests.js';

const sim = await startSim({});
const context = { upstreamUrls: [`${sim.url}/v1`], servedModel: SERVED_MODEL };
const local = await createTokenCounter(tokenizerConfig(), context);
const upstream = await createTokenCounter(tokenizerConfig({ source: 'upstream' }), context);
const tiktoken = await createTokenCounter(tokenizerConfig({ source: 'tiktoken' }), context);
t.teardown(async () => {
  await Promise.all([local.close(), upstream.close(), tiktoken.close()]);
  await sim.close();
});

const decoders = createMessagesDecoders('qwen3-8b', 8000);
/** The canonical request of POST /v1/messages/count_tokens for these messages. */
const countRequest = (messages: unknown[]) => decoders.decodeCount({ model: 'qwen3-8b', messages });
const prefilled = countRequest([
  { role: 'user', content: 'Hello' },
  { role: 'assistant', content: 'Sure:' },
]);

async function simPost(path: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(sim.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: SERVED_MODEL, ...body }),
  });
  return (await response.json()) as Record<string, unknown>;
}

const continuation = { continue_final_message: true, add_generation_prompt: false };

t.test('regression: count_tokens of a prefill counts a continuation (15 tokens, not 20)', async (t) => {
  t.equal(await local.count(prefilled), 15);
  t.equal(
    qwen3().prompt(promptInput(prefilled)),
    '<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nSure:',
    "the prompt llama-server renders for it (research note I2), and vLLM's with continue_final_message",
  );
});

t.test("the local count of a prefill equals the sim's: its /tokenize and the prompt_tokens of the call", async (t) => {
  const body = { messages: prefilled.messages, ...continuation };
  t.equal((await simPost('/tokenize', body)).count, 15);
  const answer = await simPost('/v1/chat/completions', { ...body, max_tokens: 1 });
  t.equal((answer.usage as { prompt_tokens: number }).prompt_tokens, 15);
});

t.test("the upstream counter asks the server's /tokenize for the continuation", async (t) => {
  const before = sim.requests().length;
  t.equal(await upstream.count(prefilled), 15);
  const asked = sim
    .requests()
    .slice(before)
    .find((request) => request.path === '/tokenize');
  t.match(asked?.body, continuation);
});

t.test('a conversation that asks for a new turn is counted with the generation prompt, as before', async (t) => {
  const ended = countRequest([{ role: 'user', content: 'Hello' }]);
  t.equal(await local.count(ended), (await simPost('/tokenize', { messages: ended.messages })).count);
});

t.test('the template is cut after the last occurrence of the text, as transformers cuts it', async (t) => {
  const template = new ChatTemplate(
    '{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}',
  );
  const render = (content: string): string =>
    template.render(
      [
        { role: 'user', content: 'Sure:' },
        { role: 'assistant', content },
      ],
      null,
      false,
      {},
      true,
    );
  t.equal(render('Sure:'), '<user>Sure:</user><assistant>Sure:', 'the last occurrence, not the first');
  t.equal(render('Sure: '), '<user>Sure:</user><assistant>Sure: ', 'a trailing space the template kept stays');
  const trimming = new ChatTemplate('{% for m in messages %}[{{ m.content | trim }}]{% endfor %}');
  t.equal(trimming.render([{ role: 'assistant', content: ' {x} ' }], null, false, {}, true), '[{x}');
  const dropping = new ChatTemplate('{% for m in messages %}[{{ m.role }}]{% endfor %}');
  t.throws(() => dropping.render([{ role: 'assistant', content: 'Sure:' }], null, false, {}, true), PromptError);
  t.throws(() => template.render([{ role: 'assistant', content: 'Sure:' }], null, true, {}, true), PromptError);
});

// Last: loading the tiktoken encoding takes seconds, past the sim's keep-alive.
t.test('the tiktoken approximation renders the continuation too (no end of turn, no generation prompt)', async (t) => {
  const closed = { ...prefilled, gateway: { ...prefilled.gateway } };
  delete closed.gateway.prefill;
  t.equal(
    (await tiktoken.count(closed)) - (await tiktoken.count(prefilled)),
    5,
    '<|im_end|>\\n<|im_start|>assistant\\n',
  );
});
