// The completion tokens spent on reasoning (proxy/upstream/reasoning-count.ts), one test per rule, and how
// the dialects show them.
import t from 'tap';
import { chatUsage } from '../../../../dialects/chat/encode-body.js';
import { responsesUsage } from '../../../../dialects/responses/response-object.js';
import type { ChatChunk, ChatCompletion, ChatDelta, ChatUsage } from '../../../../core/canonical.js';
import { countCompletionReasoning, ReasoningCount } from '../../../../proxy/upstream/reasoning-count.js';
import { UsageCheck } from '../../../../proxy/upstream/usage-check.js';
import { addUsage } from '../../../../plugins/search/usage.js';
import { chunk } from '../../../fixtures/chunks.js';

const usage = (completion: number, reasoning?: number): ChatUsage => ({
  prompt_tokens: 9,
  completion_tokens: completion,
  total_tokens: 9 + completion,
  ...(reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }),
});

/** Streams these deltas (each with a running usage when `running` gives one), then the final usage; returns its reasoning tokens. */
function streamed(deltas: ChatDelta[], final: ChatUsage, running?: (i: number) => ChatUsage): number | undefined {
  const count = new ReasoningCount();
  deltas.forEach((delta, i) => {
    const seen: ChatChunk = chunk([{ index: 0, delta, finish_reason: null }], running?.(i)).chunk;
    count.see(seen);
  });
  const last = chunk([], final).chunk;
  count.see(last);
  return last.usage?.completion_tokens_details?.reasoning_tokens;
}

const REASONING: ChatDelta[] = [
  { reasoning_content: 'Let' },
  { reasoning_content: ' me' },
  { reasoning: ' think' },
  { content: 'Hello' },
  { content: '!' },
];

t.test("the upstream's own figure stands when it is within the completion tokens", async (t) => {
  t.equal(streamed(REASONING, usage(20, 7)), 7);
  const check = new UsageCheck({ model: 'm', messages: [] }, 4096, { warn: () => {} });
  const reported = chunk([], usage(20, 7)).chunk;
  check.see(reported);
  t.same(reported.usage?.completion_tokens_details, { reasoning_tokens: 7 }, 'kept by the usage check');
});

t.test('an upstream figure beyond the completion tokens is dropped, and the gateway counts its own', async (t) => {
  const check = new UsageCheck({ model: 'm', messages: [] }, 4096, { warn: () => {} });
  const count = new ReasoningCount();
  for (const delta of REASONING) {
    const seen = chunk([{ index: 0, delta, finish_reason: null }]).chunk;
    check.see(seen);
    count.see(seen);
  }
  const last = chunk([], usage(5, 50)).chunk;
  check.see(last);
  count.see(last);
  t.same(last.usage?.completion_tokens_details, { reasoning_tokens: 3 });
});

t.test('streamed with running usage: the completion tokens when the reasoning ended', async (t) => {
  // Running usage counts the `<think>` token too: the reasoning ends at the 4th token.
  t.equal(
    streamed(REASONING, usage(6), (i) => usage(i + 2)),
    4,
  );
});

t.test(
  'streamed without running usage: the chunks that carried reasoning, capped by the completion tokens',
  async (t) => {
    t.equal(streamed(REASONING, usage(11)), 3);
    t.equal(streamed(REASONING, usage(2)), 2);
  },
);

t.test('a running usage gets the count so far too', async (t) => {
  const count = new ReasoningCount();
  const first = chunk([{ index: 0, delta: { reasoning_content: 'a' }, finish_reason: null }], usage(1)).chunk;
  count.see(first);
  t.same(first.usage?.completion_tokens_details, { reasoning_tokens: 1 });
});

t.test('not streamed: the reasoning text at 3 bytes a token, capped by the completion tokens', async (t) => {
  const completion = (reasoning: string, tokens: number, reported?: number): ChatCompletion => ({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'Hi', reasoning_content: reasoning }, finish_reason: 'stop' },
    ],
    usage: usage(tokens, reported),
  });
  const counted = (answer: ChatCompletion): number | undefined => {
    countCompletionReasoning(answer);
    return answer.usage?.completion_tokens_details?.reasoning_tokens;
  };
  t.equal(counted(completion('Let me think.', 11)), 5, '13 bytes');
  t.equal(counted(completion('é'.repeat(30), 11)), 11, '60 bytes, capped');
  t.equal(counted(completion('Let me think.', 11, 4)), 4, "the upstream's figure first");
});

t.test('an answer without reasoning gets no figure from the gateway', async (t) => {
  t.equal(streamed([{ content: 'Hi' }], usage(3)), undefined);
  const answer: ChatCompletion = {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
    usage: usage(3),
  };
  countCompletionReasoning(answer);
  t.equal(answer.usage?.completion_tokens_details, undefined);
});

t.test(
  'responses shows them as output_tokens_details.reasoning_tokens (0 when unknown); chat when known',
  async (t) => {
    t.same(responsesUsage(usage(11, 4))?.output_tokens_details, { reasoning_tokens: 4 });
    t.same(responsesUsage(usage(11))?.output_tokens_details, { reasoning_tokens: 0 });
    t.same(chatUsage(usage(11, 4)).completion_tokens_details, { reasoning_tokens: 4 });
    t.notOk('completion_tokens_details' in chatUsage(usage(11)));
  },
);

t.test("a search loop's rounds add their reasoning tokens", async (t) => {
  t.same(addUsage(usage(10, 4), usage(5, 2))?.completion_tokens_details, { reasoning_tokens: 6 });
  t.same(addUsage(usage(10, 4), usage(5))?.completion_tokens_details, { reasoning_tokens: 4 });
  t.equal(addUsage(usage(10), usage(5))?.completion_tokens_details, undefined);
});
