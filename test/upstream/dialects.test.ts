// Every dialect, streamed or not, with and without tools, thinking on and off, in front of a real
// llama-server: raw over HTTP and through the real openai and @anthropic-ai/sdk clients. The tiny
// model's answers are fixed (upstream-tier/tiny-qwen3-answers.ts), so each answer is checked whole.
import t, { type Test } from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { SAYS } from '../../upstream-tier/tiny-qwen3-answers.js';
import { askRaw, askSdk, type Answer, type Question } from './dialect-answers.js';
import { ledgerCheck, startLlamaStack, type LlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';

t.setTimeout(TIER_TIMEOUT_MS);

const DIALECTS: readonly DialectName[] = ['chat', 'messages', 'responses'];

/** How each dialect says that the answer ended normally, and that it ended with tool calls. */
const ENDED: Record<DialectName, { text: string; tools: string }> = {
  chat: { text: 'stop', tools: 'tool_calls' },
  messages: { text: 'end_turn', tools: 'tool_use' },
  responses: { text: 'completed', tools: 'completed' },
};

/** Each dialect's own form of a tool-call id. */
const CALL_ID: Record<DialectName, RegExp> = {
  chat: /^call_[A-Za-z0-9_-]+$/,
  messages: /^toolu_[A-Za-z0-9_-]+$/,
  responses: /^call_[A-Za-z0-9_-]+$/,
};

let llama: LlamaStack;
t.before(async () => {
  llama = await startLlamaStack(t);
});

function expectAnswer(t: Test, question: Question, answer: Answer): void {
  t.equal(answer.status, 200, JSON.stringify(answer.error));
  const thinking = question.thinking ?? true;
  t.equal(answer.reasoning, thinking ? SAYS.reasoning : '', 'the reasoning');
  if (question.tools) {
    t.equal(answer.text, '', 'no text beside the call');
    t.equal(answer.toolCalls.length, 1, 'one tool call');
    t.equal(answer.toolCalls[0]?.name, SAYS.toolName);
    t.same(answer.toolCalls[0]?.arguments, SAYS.toolArguments);
    t.match(answer.toolCalls[0]?.id, CALL_ID[question.dialect], "the id in the dialect's form");
    t.equal(answer.ended, ENDED[question.dialect].tools);
  } else {
    t.equal(answer.text, SAYS.content, 'the text');
    t.same(answer.toolCalls, []);
    t.equal(answer.ended, ENDED[question.dialect].text);
  }
  t.ok(answer.usage && answer.usage.input > 0 && answer.usage.output > 0, 'usage is reported');
}

const questions: Question[] = DIALECTS.flatMap((dialect) =>
  [false, true].flatMap((stream) =>
    [false, true].flatMap((tools) => [true, false].map((thinking) => ({ dialect, stream, tools, thinking }))),
  ),
);

function named(question: Question): string {
  return `${question.dialect}, ${question.stream ? 'streamed' : 'not streamed'}, ${
    question.tools ? 'tools offered' : 'no tools'
  }, thinking ${question.thinking ? 'on' : 'off'}`;
}

for (const question of questions) {
  t.test(`over HTTP: ${named(question)}`, async (t) => {
    expectAnswer(t, question, await askRaw(llama.url, llama.key, question));
  });
  t.test(`through the SDK: ${named(question)}`, async (t) => {
    expectAnswer(t, question, await askSdk(llama.url, llama.key, question));
  });
}

/** A tool's result sent back with the id the client got: the model then answers in text. */
for (const dialect of DIALECTS) {
  t.test(`${dialect}: a tool round trip with the id the client got ends in a text answer`, async (t) => {
    const call = await askRaw(llama.url, llama.key, { dialect, stream: false, tools: true, thinking: false });
    const id = call.toolCalls[0]?.id ?? '';
    t.match(id, CALL_ID[dialect]);
    const response = await fetch(`${llama.url}${PATH[dialect]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
      body: JSON.stringify(roundTrip(dialect, id)),
    });
    const body = (await response.json()) as Record<string, unknown>;
    t.equal(response.status, 200, JSON.stringify(body));
    t.match(JSON.stringify(body), SAYS.content, 'the text answer after the tool result');
  });
}

const PATH: Record<DialectName, string> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
};

const WEATHER_PARAMETERS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const QUESTION = 'What is the weather in Paris?';
const RESULT = '{"temperature": 21}';

function roundTrip(dialect: DialectName, id: string): Record<string, unknown> {
  switch (dialect) {
    case 'chat':
      return {
        model: 'qwen3-8b',
        max_tokens: 100,
        reasoning_effort: 'none',
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMETERS } }],
        messages: [
          { role: 'user', content: QUESTION },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: id, content: RESULT },
        ],
      };
    case 'messages':
      return {
        model: 'qwen3-8b',
        max_tokens: 100,
        thinking: { type: 'disabled' },
        tools: [{ name: 'get_weather', input_schema: WEATHER_PARAMETERS }],
        messages: [
          { role: 'user', content: QUESTION },
          { role: 'assistant', content: [{ type: 'tool_use', id, name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: RESULT }] },
        ],
      };
    case 'responses':
      return {
        model: 'qwen3-8b',
        max_output_tokens: 100,
        reasoning: { effort: 'none' },
        tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_PARAMETERS }],
        input: [
          { role: 'user', content: QUESTION },
          { type: 'function_call', call_id: id, name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: id, output: RESULT },
        ],
      };
  }
}

t.test('the ledger balances after every answer', async (t) => {
  const checked = ledgerCheck(llama.stack);
  t.equal(checked.code, 0, checked.out + checked.err);
});
