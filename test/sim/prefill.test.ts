// A prefill on the sim, as vLLM takes it: `continue_final_message: true, add_generation_prompt: false` leaves
// the last (assistant) turn open, the answer continues it (no thinking: that turn's is already closed) and
// never repeats it.
import t from 'tap';
import { countChatTokens } from '../../sim/chat-prompt.js';
import type { SimChatMessage } from '../../sim/chat-types.js';
import { complete, postJson, simFor, streamChat, MODEL } from './sim-client.js';

const messages: SimChatMessage[] = [
  { role: 'user', content: 'echo: Paris.' },
  { role: 'assistant', content: 'The capital is' },
];
const continuation = { continue_final_message: true, add_generation_prompt: false };
const openPrompt = { messages, tools: null, addGenerationPrompt: false, continueFinalMessage: true };

t.test('the prompt leaves the last turn open: no end of turn, no generation prompt', async (t) => {
  const open = countChatTokens(openPrompt);
  const closed = countChatTokens({ messages, tools: null });
  t.equal(closed - open, 5, '<|im_end|>\\n<|im_start|>assistant\\n');
  const sim = await simFor(t);
  const body = await complete(sim, { messages, ...continuation });
  t.equal(body.usage.prompt_tokens, open);
});

t.test('the answer continues the prefill without repeating it, streamed and not, and without thinking', async (t) => {
  const sim = await simFor(t, { reasoningParser: true });
  const body = await complete(sim, { messages, ...continuation });
  t.equal(body.choices[0]?.message.content, 'Paris.');
  t.equal(body.choices[0]?.message.reasoning_content, null);
  const { chunks } = await streamChat(sim, { messages, ...continuation });
  t.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Paris.');
});

t.test('continue_final_message with add_generation_prompt is a 400, as in vLLM', async (t) => {
  const sim = await simFor(t);
  const both = await postJson(sim, '/v1/chat/completions', {
    model: MODEL,
    messages,
    continue_final_message: true,
    add_generation_prompt: true,
  });
  t.equal(both.status, 400);
  const defaulted = await postJson(sim, '/v1/chat/completions', {
    model: MODEL,
    messages,
    continue_final_message: true,
  });
  t.equal(defaulted.status, 400, 'the default generation prompt too: the template refuses the pair');
  const tokenized = await postJson<{ count: number }>(sim, '/tokenize', { model: MODEL, messages, ...continuation });
  t.equal(tokenized.body.count, countChatTokens(openPrompt), '/tokenize takes the pair as chat does');
});
