// proxy/stream/usage-watch.ts: what an answer used, as the rate limiter and the meter both charge it.
import t from 'tap';
import type { ChatChunkChoice, ChatCompletion, ResponseEvent } from '../../../../core/canonical.js';
import { completionAsChunk } from '../../../../plugins/search/completion-chunk.js';
import { chunkBytes, completionBytes, UsageWatch, usageOf } from '../../../../proxy/stream/usage-watch.js';
import { textStream, toolStream, USAGE } from '../../../fixtures/chunks.js';
import { chatChunk } from '../../../kit/chunks.js';

const completion: ChatCompletion = {
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Grüße',
        reasoning_content: 'think',
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: USAGE,
};

t.test('the last usage the events carried is kept, and the output tokens are its completion_tokens', async (t) => {
  const watch = new UsageWatch();
  for (const event of textStream) watch.see(event);
  t.same(watch.usage, USAGE);
  t.equal(watch.outputTokens(), USAGE.completion_tokens);
});

t.test('without usage, the output tokens are the produced UTF-8 bytes at 3 a token, rounded up', async (t) => {
  const watch = new UsageWatch();
  for (const event of textStream.slice(0, -1)) watch.see(event);
  t.equal(watch.producedBytes, Buffer.byteLength('Hello world'));
  t.equal(watch.outputTokens(), 4);
});

t.test(
  'produced bytes count text, reasoning (either field, once), tool-call names and arguments, in UTF-8',
  async (t) => {
    const chunk = (delta: ChatChunkChoice['delta']) => chatChunk(delta);
    t.equal(chunkBytes(chunk({ content: 'Grüße' })), 7);
    t.equal(
      chunkBytes(chunk({ reasoning_content: 'abc', reasoning: 'abc' })),
      3,
      'reasoning under both names counts once',
    );
    t.equal(chunkBytes(chunk({ reasoning: 'abcd' })), 4);
    const watch = new UsageWatch();
    for (const event of toolStream) watch.see(event);
    t.equal(watch.producedBytes, Buffer.byteLength('get_weather{"city": "Paris"}get_time{}'));
  },
);

t.test('a completion counts as the one chunk that carries all of it', async (t) => {
  t.equal(completionBytes(completion), chunkBytes(completionAsChunk(completion)));
  const watch = new UsageWatch();
  watch.see({ type: 'completion', completion });
  t.equal(watch.producedBytes, Buffer.byteLength('Grüße') + 5 + 3);
  t.same(watch.usage, USAGE);
});

t.test('search events carry no usage and produce nothing', async (t) => {
  const event: ResponseEvent = { type: 'search_call', id: 's', query: 'weather' };
  const watch = new UsageWatch();
  watch.see(event);
  t.equal(usageOf(event), undefined);
  t.same([watch.usage, watch.producedBytes], [undefined, 0]);
  t.same(usageOf({ type: 'completion', completion }), USAGE);
  t.equal(usageOf({ type: 'completion', completion: { ...completion, usage: null } }), undefined);
});
