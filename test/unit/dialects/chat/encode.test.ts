import t from 'tap';
import { ChatStreamEncoder, type ChatStreamOptions } from '../../../../dialects/chat/encode-stream.js';
import { encodeChatBody } from '../../../../dialects/chat/encode-body.js';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { CanonicalEvent } from '../../../../core/canonical.js';
import { GatewayError } from '../../../../core/errors.js';
import { textStream, toolStream, USAGE } from '../../../fixtures/chunks.js';
import { encodeAll, framesOf, type Frame } from '../../../kit/frames.js';

const base: ChatStreamOptions = {
  id: 'chatcmpl-gw',
  created: 100,
  modelId: 'qwen3-8b',
  wire: 'spec',
  includeUsage: false,
  continuousUsage: false,
};

function encode(events: CanonicalEvent[], options: Partial<ChatStreamOptions> = {}): Frame[] {
  return encodeAll(new ChatStreamEncoder({ ...base, ...options }), events);
}

t.test('profile spec: message_start, message_delta per delta, message_stop, and no [DONE]', async (t) => {
  const frames = encode(textStream);
  t.same(
    frames.map((frame) => frame.event),
    ['message_start', 'message_delta', 'message_delta', 'message_delta', 'message_stop'],
  );
  t.same(JSON.parse(frames[0]!.data), {
    id: 'chatcmpl-gw',
    object: 'chat.completion',
    created: 100,
    model: 'qwen3-8b',
    choices: [],
  });
  t.notOk(frames.some((frame) => frame.data === '[DONE]'));
});

t.test('profile spec: the first delta is role assistant with empty content, then the text', async (t) => {
  const deltas = encode(textStream)
    .filter((frame) => frame.event === 'message_delta')
    .map((frame) => JSON.parse(frame.data));
  t.same(deltas[0].choices, [{ index: 0, delta: { role: 'assistant', content: '' } }]);
  t.same(
    deltas.slice(1).map((delta) => delta.choices[0].delta.content),
    ['Hello', ' world'],
  );
  for (const delta of deltas) {
    t.equal(delta.object, 'chat.completion.chunk');
    t.equal(delta.model, 'qwen3-8b', 'the upstream model name never shows');
    t.equal(delta.id, 'chatcmpl-gw');
  }
});

t.test("profile spec: vLLM's empty tool_calls beside text is not passed on", async (t) => {
  const frames = encode(textStream);
  t.notOk(frames.some((frame) => frame.data.includes('tool_calls')));
});

t.test('profile spec: message_stop has an empty delta and the finish_reason; usage only when asked', async (t) => {
  const without = JSON.parse(encode(textStream).at(-1)!.data);
  t.same(without.choices, [{ index: 0, delta: {}, finish_reason: 'stop' }]);
  t.notOk('usage' in without);
  const withUsage = JSON.parse(encode(textStream, { includeUsage: true }).at(-1)!.data);
  t.same(withUsage.usage, USAGE);
});

t.test('finish_reason is tool_calls whenever a tool was called, even if the upstream said stop', async (t) => {
  t.same(JSON.parse(encode(toolStream).at(-1)!.data).choices[0].finish_reason, 'tool_calls');
  const openai = encode(toolStream, { wire: 'openai' })
    .map((frame) => frame.data)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data));
  t.equal(openai.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason, 'tool_calls');
});

t.test('tool-call fragments pass through keyed on their index', async (t) => {
  const calls = encode(toolStream)
    .filter((frame) => frame.event === 'message_delta' && frame.data.includes('"tool_calls"'))
    .map((frame) => JSON.parse(frame.data).choices[0].delta.tool_calls[0]);
  t.same(
    calls.map((call) => call.index),
    [0, 0, 1, 0, 1],
  );
  t.same(calls[0], { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } });
});

t.test(
  'profile openai: data-only chunks, usage in a final chunk with no choices when asked, then [DONE]',
  async (t) => {
    const frames = encode(textStream, { wire: 'openai', includeUsage: true });
    t.ok(frames.every((frame) => frame.event === null));
    t.equal(frames.at(-1)!.data, '[DONE]');
    const usage = JSON.parse(frames.at(-2)!.data);
    t.same(usage.choices, []);
    t.same(usage.usage, USAGE);
    const first = JSON.parse(frames[0]!.data);
    t.same(first.choices[0].delta, { role: 'assistant', content: '' });
    t.equal(JSON.parse(frames[2]!.data).choices[0].finish_reason, 'stop');
  },
);

t.test('profile openai: no usage chunk unless include_usage was asked', async (t) => {
  const frames = encode(textStream, { wire: 'openai' });
  t.notOk(frames.some((frame) => frame.data.includes('"usage"')));
});

t.test('an error after the first byte is an error event in the chat shape', async (t) => {
  const error = new GatewayError('GW_ERR_UPSTREAM_STREAM_CUT', 'cut');
  const spec = framesOf((out) => new ChatStreamEncoder(base).error(error, out))[0]!;
  t.equal(spec.event, 'error');
  t.same(JSON.parse(spec.data), {
    error: { message: 'cut', type: 'server_error', code: 'upstream_stream_cut', param: null },
  });
  const openai = framesOf((out) => new ChatStreamEncoder({ ...base, wire: 'openai' }).error(error, out))[0]!;
  t.equal(openai.event, null);
  t.equal(JSON.parse(openai.data).error.code, 'upstream_stream_cut');
});

t.test('non-streaming body: spec 2.5 shape with tool calls merged and total_tokens the sum', async (t) => {
  const accumulator = new CompletionAccumulator();
  for (const event of toolStream) accumulator.add(event.chunk);
  const body = encodeChatBody(accumulator.result(), 'chatcmpl-gw', 100, 'qwen3-8b');
  t.same(body, {
    id: 'chatcmpl-gw',
    object: 'chat.completion',
    created: 100,
    model: 'qwen3-8b',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  });
});
