// The newlines Qwen3 writes after `</think>` are cut from the head of the content (proxy/upstream/thinking-separator.ts).
import t from 'tap';
import type { ChatDelta } from '../../../../core/canonical.js';
import { contentAfterThinking, ThinkingSeparator } from '../../../../proxy/upstream/thinking-separator.js';
import { chunk } from '../../../fixtures/chunks.js';

/** The content deltas a stream of these deltas leaves. */
function contents(deltas: ChatDelta[]): Array<string | null | undefined> {
  const separator = new ThinkingSeparator();
  return deltas.map((delta) => {
    const event = chunk([{ index: 0, delta: { ...delta } }]);
    separator.see(event.chunk);
    return event.chunk.choices[0]?.delta.content;
  });
}

t.test('streamed: the newlines that open the content after reasoning are cut, however they are split', async (t) => {
  t.same(contents([{ reasoning_content: '\nhm\n' }, { content: '\n\n' }, { content: 'Hi' }, { content: '\n' }]), [
    undefined,
    '',
    'Hi',
    '\n',
  ]);
  t.same(contents([{ reasoning: 'hm' }, { content: '\n' }, { content: '\nHi\n\nthere' }]), [
    undefined,
    '',
    'Hi\n\nthere',
  ]);
});

t.test('streamed: content without reasoning before it is left as it is', async (t) => {
  t.same(contents([{ content: '\n\nHi' }, { reasoning_content: 'late' }, { content: '\nmore' }]), [
    '\n\nHi',
    undefined,
    '\nmore',
  ]);
});

t.test('not streamed: the content after reasoning loses its opening newlines; nothing left is null', async (t) => {
  t.equal(contentAfterThinking({ role: 'assistant', content: '\n\nHi', reasoning_content: 'hm' }), 'Hi');
  t.equal(contentAfterThinking({ role: 'assistant', content: '\n\n', reasoning_content: 'hm' }), null);
  t.equal(contentAfterThinking({ role: 'assistant', content: '\n\nHi' }), '\n\nHi');
});
