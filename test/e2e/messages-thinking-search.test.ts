// Thinking with server-side search rounds in the message dialect: the thinking of each round keeps its place
// among the search blocks and the text, streamed and not, and every thinking block verifies when replayed.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

const MODEL = 'qwen3-8b';
const SEARCH = { type: 'web_search_20250305' as const, name: 'web_search' as const };

let stack: Stack;
t.before(async () => {
  stack = await startStack({
    sim: { reasoningParser: true },
    yaml: 'plugins:\n  - name: search\n    options: { provider: local }\n',
  });
});
t.teardown(() => stack.close());

const client = (): Anthropic => new Anthropic({ apiKey: 'sk-test', baseURL: stack.gateway.url, maxRetries: 0 });
const request: Anthropic.MessageCreateParamsNonStreaming = {
  model: MODEL,
  max_tokens: 2000,
  thinking: { type: 'enabled', budget_tokens: 1024 },
  tools: [SEARCH],
  messages: [{ role: 'user', content: 'think: Look it up.\nsearch: lisbon weather' }],
};

/** Block types, consecutive text blocks (split at citations) counted once. */
const shape = (content: Anthropic.ContentBlock[]): string[] =>
  content.map((block) => block.type).filter((type, i, all) => type !== 'text' || all[i - 1] !== 'text');

t.test('each search round thinks first: thinking, search, thinking, text, the same streamed and not', async (t) => {
  const body = await client().messages.create(request);
  const streamed = await client().messages.stream(request).finalMessage();
  const expected = ['thinking', 'server_tool_use', 'web_search_tool_result', 'thinking', 'text'];
  t.same(shape(body.content), expected);
  t.same(shape(streamed.content), expected);
  const thoughts = (content: Anthropic.ContentBlock[]) =>
    content.filter((block) => block.type === 'thinking').map((block) => block.type === 'thinking' && block.thinking);
  t.same(thoughts(body.content), ['\nLook it up.\n', '\nLook it up.\n']);
  t.same(thoughts(streamed.content), thoughts(body.content));
});

t.test('the whole turn, its thinking blocks included, is accepted when passed back', async (t) => {
  const first = await client().messages.stream(request).finalMessage();
  const next = await client().messages.create({
    ...request,
    messages: [
      ...request.messages,
      { role: 'assistant', content: first.content },
      { role: 'user', content: 'echo: ok' },
    ],
  });
  t.equal(next.stop_reason, 'end_turn');
  t.equal(next.content.at(-1)?.type, 'text');
});
