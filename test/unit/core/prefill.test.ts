// What a prefill is (core/prefill.ts), as the decoders mark it on the canonical request and the
// terminal and the counters read it.
import t from 'tap';
import { createChatDecoder } from '../../../dialects/chat/decode.js';
import { createMessagesDecoders } from '../../../dialects/messages/decode.js';
import type { ChatRequest } from '../../../core/canonical.js';
import { continuedPrefill, prefillText } from '../../../core/prefill.js';
import { upstreamFields } from '../../../proxy/upstream/request-fields.js';

const MODEL = 'qwen3-8b';
const messages = createMessagesDecoders(MODEL, 8000);
const chat = createChatDecoder({ modelId: MODEL, maxOutputTokens: 32768 });
const hello = { role: 'user', content: 'Hello' } as const;

t.test(
  'a trailing assistant message with text is a prefill, on /v1/messages (and its count) and on chat',
  async (t) => {
    const body = { model: MODEL, max_tokens: 50, messages: [hello, { role: 'assistant', content: 'Sure:' }] };
    t.equal(messages.decode(body).request.gateway?.prefill, 'Sure:');
    const { max_tokens: _, ...count } = body;
    t.equal(messages.decodeCount(count).gateway?.prefill, 'Sure:');
    t.equal(chat({ model: MODEL, messages: body.messages }).request.gateway?.prefill, 'Sure:');
    t.equal(
      messages.decode({ ...body, messages: [hello, { role: 'assistant', content: [{ type: 'text', text: '{' }] }] })
        .request.gateway?.prefill,
      '{',
      'text blocks',
    );
  },
);

t.test(
  'a conversation that ends with the user, a tool call, or an assistant turn without text asks for a new turn',
  async (t) => {
    const decode = (last: object): ChatRequest =>
      messages.decode({ model: MODEL, max_tokens: 50, messages: [hello, last] }).request;
    t.notOk('prefill' in messages.decode({ model: MODEL, max_tokens: 50, messages: [hello] }).request);
    t.notOk(
      'prefill' in decode({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] }),
    );
    t.notOk('prefill' in decode({ role: 'assistant', content: '  \n' }), 'whitespace: nothing to continue');
    t.notOk('prefill' in decode({ role: 'assistant', content: [] }));
    t.equal(prefillText([{ role: 'assistant', content: null }]), undefined);
  },
);

t.test("a client's own `prefill` field never stands: the messages decide", async (t) => {
  t.notOk('prefill' in chat({ model: MODEL, messages: [hello], prefill: 'injected' }).request);
  t.equal(
    chat({ model: MODEL, messages: [hello, { role: 'assistant', content: 'Sure:' }], prefill: 'x' }).request.gateway
      ?.prefill,
    'Sure:',
  );
});

t.test(
  'the prefill is continued only while the messages still end with it (a search round appends tool results)',
  async (t) => {
    const request = chat({ model: MODEL, messages: [hello, { role: 'assistant', content: 'Sure:' }] }).request;
    t.equal(continuedPrefill(request), 'Sure:');
    request.messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'web_search', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: 'results' },
    );
    t.equal(continuedPrefill(request), undefined);
  },
);

t.test(
  'what each flavor does with a prefill: vLLM and SGLang are asked, llama-server echoes it, the others are left be',
  async (t) => {
    t.equal(upstreamFields('vllm', []).prefill, 'continue-flag');
    t.equal(upstreamFields('sglang', []).prefill, 'continue-flag');
    t.equal(upstreamFields('llama-server', []).prefill, 'echoed');
    for (const flavor of ['tgi', 'ollama', 'openai'] as const)
      t.equal(upstreamFields(flavor, []).prefill, 'as-is', flavor);
    t.notOk(upstreamFields('vllm', ['prefill']).passed.has('prefill'), 'a gateway-side field, never sent as it is');
  },
);
