// The client's thinking switch in each dialect → the canonical `enable_thinking`; and the flavor's upstream field.
import t from 'tap';
import { createChatDecoder } from '../../../../dialects/chat/decode.js';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import { createResponsesDecoder } from '../../../../dialects/responses/decode.js';
import { defaultThinkingField, upstreamFields, UPSTREAM_FLAVORS } from '../../../../proxy/upstream/request-fields.js';
import { refusal } from '../../../helpers/rejection.js';

const MODEL = 'qwen3-8b';
const messages = createMessagesDecoders(MODEL, 8000);
const responses = createResponsesDecoder({ modelId: MODEL, functionTools: false, maxOutputTokens: 32768 });
const chat = createChatDecoder({ modelId: MODEL, maxOutputTokens: 32768 });

const messagesSwitch = (thinking: unknown): unknown =>
  messages.decode({ model: MODEL, max_tokens: 2000, messages: [{ role: 'user', content: 'Hi' }], thinking }).request
    .gateway?.enable_thinking;
const responsesSwitch = (reasoning: unknown): unknown =>
  responses({ model: MODEL, input: 'Hi', reasoning }).request.gateway?.enable_thinking;
const chatSwitch = (fields: Record<string, unknown>): unknown =>
  chat({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...fields }).request.gateway?.enable_thinking;

t.test('messages: enabled and adaptive turn thinking on, disabled off, none leaves the default', async (t) => {
  t.equal(messagesSwitch({ type: 'enabled', budget_tokens: 1024 }), true);
  t.equal(messagesSwitch({ type: 'adaptive' }), true);
  t.equal(
    messagesSwitch({ type: 'adaptive', display: 'highlights' }),
    true,
    "Claude Code's display values are accepted",
  );
  t.equal(messagesSwitch({ type: 'disabled' }), false);
  t.equal(messagesSwitch(undefined), undefined);
});

t.test('messages: a thinking param Anthropic would refuse is a 400 naming the field', async (t) => {
  t.match(
    refusal(() => messagesSwitch({ type: 'enabled' })),
    { status: 400, param: 'thinking.budget_tokens' },
  );
  t.match(
    refusal(() => messagesSwitch({ type: 'enabled', budget_tokens: 100 })),
    {
      status: 400,
      param: 'thinking.budget_tokens',
    },
  );
  t.match(
    refusal(() => messagesSwitch({ type: 'enabled', budget_tokens: 1e300 })),
    { status: 400, param: 'thinking.budget_tokens' },
    'a budget beyond any output is refused: every number a client sends is bounded',
  );
  t.match(
    refusal(() => messagesSwitch({ type: 'sometimes' })),
    { status: 400, param: 'thinking.type' },
  );
});

t.test('responses: effort none and minimal turn thinking off, the others on, none or null the default', async (t) => {
  t.equal(responsesSwitch({ effort: 'none' }), false);
  t.equal(responsesSwitch({ effort: 'minimal' }), false);
  for (const effort of ['low', 'medium', 'high', 'xhigh']) t.equal(responsesSwitch({ effort }), true, effort);
  t.equal(responsesSwitch({ effort: null, summary: 'auto' }), undefined);
  t.equal(responsesSwitch(undefined), undefined);
  t.match(
    refusal(() => responsesSwitch({ effort: 'max' })),
    { status: 400, param: 'reasoning.effort' },
  );
});

t.test("chat: enable_thinking as Qwen's API takes it, else reasoning_effort as OpenAI's", async (t) => {
  t.equal(chatSwitch({ enable_thinking: false }), false);
  t.equal(chatSwitch({ reasoning_effort: 'none' }), false);
  t.equal(chatSwitch({ reasoning_effort: 'high' }), true);
  t.equal(chatSwitch({ reasoning_effort: 'high', enable_thinking: false }), false);
  t.equal(chatSwitch({}), undefined);
  t.match(
    refusal(() => chatSwitch({ enable_thinking: 'yes' })),
    { status: 400, param: 'enable_thinking' },
  );
});

t.test('chat: a body cannot set the gateway-side thinking_replay', async (t) => {
  const request = chat({
    model: MODEL,
    messages: [{ role: 'user', content: 'Hi' }],
    thinking_replay: [{ param: 'x', thinking: 'y', signature: 'z' }],
  }).request;
  t.equal(request.gateway?.thinking_replay, undefined);
});

t.test(
  'the switch goes to chat_template_kwargs.enable_thinking on vLLM, SGLang and llama-server, nowhere on the others',
  async (t) => {
    for (const flavor of UPSTREAM_FLAVORS) {
      const expected = ['vllm', 'sglang', 'llama-server'].includes(flavor)
        ? ['chat_template_kwargs', 'enable_thinking']
        : undefined;
      t.same(upstreamFields(flavor, []).thinkingPath, expected, flavor);
      t.notOk(upstreamFields(flavor, []).passed.has('enable_thinking'), `${flavor}: never sent as it is`);
    }
    t.equal(defaultThinkingField('tgi'), undefined);
    t.same(upstreamFields('openai', [], 'think').thinkingPath, ['think'], 'the operator names another field');
    t.equal(upstreamFields('vllm', [], '').thinkingPath, undefined, "'' sends it nowhere");
  },
);
