// The tiny Qwen3 model's answers through the TypeScript forward pass (no llama-server needed): every
// conversation of tiny-qwen3-check.ts gives its expected tokens, each winning by more than 20 logits.
import t from 'tap';
import { CONVERSATIONS, MIN_MARGIN } from '../../upstream-tier/tiny-qwen3-check.js';
import { checkedTinyQwen3Weights } from '../../upstream-tier/tiny-qwen3.js';
import { ANSWER, CONTINUATION, SAYS, THINKING, TOOL_CALL } from '../../upstream-tier/tiny-qwen3-answers.js';

const { margins } = checkedTinyQwen3Weights();

t.test('each conversation gets its expected tokens, each by a wide margin', async (t) => {
  t.same(
    [...margins.keys()],
    CONVERSATIONS.map((c) => c.name),
  );
  for (const conversation of CONVERSATIONS) {
    const steps = margins.get(conversation.name) ?? [];
    t.same(
      steps.map((step) => step.expected),
      conversation.expected,
      conversation.name,
    );
    const smallest = Math.min(...steps.map((step) => step.margin));
    t.ok(smallest > MIN_MARGIN, `${conversation.name}: smallest margin ${smallest.toFixed(1)}`);
  }
});

t.test('with tools offered, the model thinks and then calls the tool', async (t) => {
  const steps = margins.get('thinking, tool call') ?? [];
  t.equal(steps.map((step) => step.expected).join(''), `<think>Let me think.</think>\n\n${TOOL_CALL.join('')}`);
});

t.test('the pieces spell what llama-server is expected to return', async (t) => {
  t.equal(THINKING.join(''), `<think>${SAYS.reasoning}</think>\n\n`);
  t.equal(ANSWER.join(''), `${SAYS.content}<|im_end|>`);
  t.equal(CONTINUATION.join(''), ` ${SAYS.content}`);
  const call = TOOL_CALL.join('').match(/^<tool_call>\n(.*)\n<\/tool_call><\|im_end\|>$/s);
  t.same(JSON.parse(call?.[1] ?? 'null'), { name: SAYS.toolName, arguments: SAYS.toolArguments });
});
