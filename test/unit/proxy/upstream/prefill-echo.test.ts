// A prefill's echo is cut from the answer where the server repeats it (llama-server): proxy/upstream/prefill-echo.ts,
// run as the terminal runs it (chat-call.ts): on each decoded chunk before the thinking separator, and on
// the parsed completion.
import t from 'tap';
import type { CanonicalEvent, ChatChunkChoice, ChatDelta } from '../../../../core/canonical.js';
import { ChunkDecoder } from '../../../../proxy/upstream/chunk-decoder.js';
import { PrefillEcho, stripPrefillEcho } from '../../../../proxy/upstream/prefill-echo.js';
import { ThinkingSeparator } from '../../../../proxy/upstream/thinking-separator.js';
import { upstreamCompletion } from '../../../../proxy/upstream/upstream-completion.js';
import { chunk } from '../../../fixtures/chunks.js';
import {
  CONTINUATION,
  ECHOED_COMPLETION,
  ECHOED_STREAM,
  PREFILL,
  sseText,
} from '../../../fixtures/llama-server-prefill.js';

/** The content a client gets from an SSE stream, decoded and cut as the terminal does it. */
function streamedContent(sse: string, prefill: string): { content: string; events: CanonicalEvent[] } {
  const echo = new PrefillEcho(prefill);
  const separator = new ThinkingSeparator();
  const events: CanonicalEvent[] = [];
  const decoder = new ChunkDecoder(1 << 16, (chunk) => {
    echo.see(chunk);
    separator.see(chunk);
  });
  const emit = (event: CanonicalEvent): void => void events.push(event);
  decoder.push(Buffer.from(sse), emit);
  decoder.end(emit);
  let content = '';
  for (const event of events)
    if (event.type === 'chunk') for (const choice of event.chunk.choices) content += choice.delta.content ?? '';
  return { content, events };
}

/** What each of these choices' deltas leaves, one chunk per entry. */
function cut(
  prefill: string,
  choices: Array<Partial<ChatChunkChoice> & { delta: ChatDelta }>,
): Array<string | null | undefined> {
  const echo = new PrefillEcho(prefill);
  return choices.map((choice) => {
    const event = chunk([{ index: 0, ...choice, delta: { ...choice.delta } }]);
    echo.see(event.chunk);
    return event.chunk.choices[0]?.delta.content;
  });
}

t.test('regression: a prefill is not echoed back on llama-server (its recorded stream)', async (t) => {
  const { content } = streamedContent(sseText(ECHOED_STREAM), PREFILL);
  t.equal(content, CONTINUATION, 'the continuation only, as Anthropic answers a prefill');
});

t.test('regression: a prefill is not echoed back on llama-server (its recorded answer, not streamed)', async (t) => {
  const completion = upstreamCompletion(JSON.stringify(ECHOED_COMPLETION));
  stripPrefillEcho(completion, PREFILL);
  t.equal(completion.choices[0]?.message.content, CONTINUATION);
});

t.test('an echo split over chunks is held back until it is whole, then cut', async (t) => {
  t.same(
    cut('Sure: here', [
      { delta: { content: 'Su' } },
      { delta: { content: 're: he' } },
      { delta: { content: 're it is' } },
    ]),
    ['', '', ' it is'],
  );
});

t.test('an answer that does not start with the prefill passes whole, the held part included', async (t) => {
  t.same(
    cut('Sure:', [{ delta: { content: 'Su' } }, { delta: { content: 'ch a day' } }, { delta: { content: 'Sure:' } }]),
    ['', 'Such a day', 'Sure:'],
  );
  const { content } = streamedContent(
    sseText([{ choices: [{ index: 0, delta: { content: 'Well, hello' }, finish_reason: 'stop' }] }]),
    'Sure:',
  );
  t.equal(content, 'Well, hello');
});

t.test('an answer that ends, or turns to tool calls, inside the prefill gets what was held back', async (t) => {
  t.same(cut('Sure: here', [{ delta: { content: 'Sure' } }, { delta: {}, finish_reason: 'length' }]), ['', 'Sure']);
  t.same(cut('Sure: here', [{ delta: { content: 'Sure' } }, { delta: { content: ':' }, finish_reason: 'stop' }]), [
    '',
    'Sure:',
  ]);
  t.same(
    cut('Sure: here', [
      { delta: { content: 'Sure' } },
      { delta: { tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '' } }] } },
    ]),
    ['', 'Sure'],
  );
});

t.test('reasoning is never touched; the echo is looked for at the start of the text', async (t) => {
  t.same(
    cut('Sure:', [
      { delta: { reasoning_content: 'Sure: I think' } },
      { delta: { content: 'Sure: ok' } },
      { delta: { content: 'Sure:' } },
    ]),
    [undefined, ' ok', 'Sure:'],
  );
});

t.test('each choice is matched on its own', async (t) => {
  const echo = new PrefillEcho('Sure:');
  const event = chunk([
    { index: 0, delta: { content: 'Sure: a' } },
    { index: 1, delta: { content: 'No' } },
  ]);
  echo.see(event.chunk);
  t.same(
    event.chunk.choices.map((choice) => choice.delta.content),
    [' a', 'No'],
  );
});

t.test(
  'not streamed: a content that is the prefill alone leaves no text; one that is not is left as it is',
  async (t) => {
    const completion = upstreamCompletion(
      JSON.stringify({
        choices: [
          { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Sure:' } },
          { index: 1, finish_reason: 'stop', message: { role: 'assistant', content: 'Nope. Sure:' } },
        ],
      }),
    );
    stripPrefillEcho(completion, 'Sure:');
    t.same(
      completion.choices.map((choice) => choice.message.content),
      [null, 'Nope. Sure:'],
    );
  },
);
