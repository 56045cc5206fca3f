// proxy/upstream/upstream-completion.ts: a non-streamed answer is checked and put in canonical form
// once, as exactly the completion its one chunk would accumulate to (what the encoders read before).
import t from 'tap';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { ChatCompletion } from '../../../../core/canonical.js';
import { completionAsChunk } from '../../../../plugins/search/completion-chunk.js';
import { upstreamCompletion } from '../../../../proxy/upstream/upstream-completion.js';

/** The path before: the completion as one chunk, accumulated back. */
function asAccumulated(raw: object): ChatCompletion {
  const accumulator = new CompletionAccumulator();
  accumulator.add(completionAsChunk(raw as ChatCompletion));
  return accumulator.result();
}

const bodies: Record<string, object> = {
  'plain text, vLLM extras': {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 5,
    model: 'Qwen/Qwen3-8B',
    system_fingerprint: 'x',
    prompt_logprobs: null,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Hi',
          refusal: null,
          annotations: null,
          reasoning_content: null,
          tool_calls: [],
        },
        logprobs: null,
        finish_reason: 'stop',
        stop_reason: null,
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, prompt_tokens_details: null },
  },
  'reasoning and tool calls (one without id or name), a matched stop string': {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: '',
          reasoning_content: 'hmm',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            { type: 'function', function: { arguments: '' } },
          ],
        },
        finish_reason: 'tool_calls',
        stop_reason: '</s>',
      },
    ],
  },
  'two choices out of order, logprobs, no usage': {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      { index: 1, message: { role: 'assistant', content: 'b' }, finish_reason: 'length', logprobs: { content: [] } },
      { index: 0, message: { role: 'assistant', content: null }, finish_reason: null },
    ],
    usage: null,
  },
};

for (const [name, body] of Object.entries(bodies)) {
  t.test(`the canonical completion is the one the answer's chunk accumulates to: ${name}`, async (t) => {
    t.same(upstreamCompletion(JSON.stringify(body)), asAccumulated(body));
    t.equal(
      JSON.stringify(upstreamCompletion(JSON.stringify(body))),
      JSON.stringify(asAccumulated(body)),
      'the same fields in the same order',
    );
  });
}

t.test("a body that is not a completion is the upstream's fault (502), whatever is wrong with it", async (t) => {
  t.throws(() => upstreamCompletion('not json'), { code: 'GW_ERR_UPSTREAM_BAD_RESPONSE', message: /not JSON/ });
  t.throws(() => upstreamCompletion('{"id":"c"}'), {
    code: 'GW_ERR_UPSTREAM_BAD_RESPONSE',
    message: /without choices/,
  });
  t.throws(() => upstreamCompletion('[]'), { code: 'GW_ERR_UPSTREAM_BAD_RESPONSE', message: /without choices/ });
  t.throws(() => upstreamCompletion('{"choices":[{"index":0,"message":null}]}'), {
    code: 'GW_ERR_UPSTREAM_BAD_RESPONSE',
    message: /without a message/,
  });
});

t.test("current vLLM's `reasoning` (which replaced reasoning_content) is the completion's reasoning", async (t) => {
  const completion = upstreamCompletion(
    JSON.stringify({
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hi', reasoning: '\nhmm\n' }, finish_reason: 'stop' },
      ],
    }),
  );
  t.same(completion.choices[0]?.message, { role: 'assistant', content: 'Hi', reasoning_content: '\nhmm\n' });
});
