// Which stop string ended an answer, as each server says it (proxy/upstream/matched-stop.ts): vLLM's
// `stop_reason` is the canonical form, SGLang's `matched_stop` is read into it when it is a string.
import t from 'tap';
import { stopReason } from '../../../../dialects/messages/stop-reason.js';
import type { ChatChunk } from '../../../../core/canonical.js';
import { readMatchedStop } from '../../../../proxy/upstream/matched-stop.js';
import { upstreamCompletion } from '../../../../proxy/upstream/upstream-completion.js';
import { chatChunk } from '../../../kit/chunks.js';

/** SGLang's last content chunk, as its serving_chat streams it. */
function sglangChunk(matched: unknown): ChatChunk {
  const chunk = chatChunk({ content: '' }, { finish_reason: 'stop' });
  Object.assign(chunk.choices[0]!, { matched_stop: matched });
  return chunk;
}

t.test("SGLang's matched_stop string is the stop_reason, and the message dialect reports it", async (t) => {
  const chunk = sglangChunk('world');
  readMatchedStop(chunk);
  t.same(chunk.choices[0], { index: 0, delta: { content: '' }, finish_reason: 'stop', stop_reason: 'world' });
  t.same(stopReason('stop', false, chunk.choices[0]!.stop_reason, ['world']), {
    reason: 'stop_sequence',
    sequence: 'world',
  });
});

t.test('a matched stop token id (a number) names no stop string: the end of turn', async (t) => {
  const chunk = sglangChunk(151645);
  readMatchedStop(chunk);
  t.equal(chunk.choices[0]!.stop_reason, undefined);
  t.notOk('matched_stop' in chunk.choices[0]!);
  t.same(stopReason('stop', false, chunk.choices[0]!.stop_reason, ['world']), { reason: 'end_turn', sequence: null });
});

t.test("vLLM's stop_reason stands as it is", async (t) => {
  const chunk = sglangChunk(undefined);
  chunk.choices[0]!.stop_reason = 'world';
  readMatchedStop(chunk);
  t.equal(chunk.choices[0]!.stop_reason, 'world');
});

t.test("a non-streamed SGLang answer's matched_stop is its stop_reason too", async (t) => {
  const completion = upstreamCompletion(
    JSON.stringify({
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'Qwen/Qwen3-8B',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello ' }, finish_reason: 'stop', matched_stop: 'world' },
      ],
    }),
  );
  t.equal(completion.choices[0]!.stop_reason, 'world');
});
