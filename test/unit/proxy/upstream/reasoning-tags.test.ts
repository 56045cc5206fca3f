// Raw `<think>…</think>` in the content of a server without a reasoning parser is moved to
// `reasoning_content` by the gateway (proxy/upstream/reasoning-tags.ts, upstream.reasoning_tags).
import t from 'tap';
import type { ChatChunkChoice, ChatCompletion, ChatDelta, ChatRequest } from '../../../../core/canonical.js';
import {
  ReasoningTags,
  splitReasoningTags,
  tagPolicy,
  type TagPolicy,
} from '../../../../proxy/upstream/reasoning-tags.js';
import { chunk } from '../../../fixtures/chunks.js';

const AUTO: TagPolicy = { open: false, thinking: true };
const OPEN: TagPolicy = { open: true, thinking: true };
const THINKING_OFF: TagPolicy = { open: false, thinking: false };

/** What each streamed delta carries after the split: `r:` reasoning, `c:` content (empty pieces left out). */
function streamed(policy: TagPolicy, deltas: Array<string | ChatDelta>, finish = true): string[][] {
  const tags = new ReasoningTags(policy);
  return deltas.map((piece, i) => {
    const delta: ChatDelta = typeof piece === 'string' ? { content: piece } : { ...piece };
    const choice: ChatChunkChoice = {
      index: 0,
      delta,
      finish_reason: finish && i === deltas.length - 1 ? 'stop' : null,
    };
    tags.see(chunk([choice]).chunk);
    const shown: string[] = [];
    if (delta.reasoning_content) shown.push(`r:${delta.reasoning_content}`);
    if (delta.content) shown.push(`c:${delta.content}`);
    return shown;
  });
}

/** The whole reasoning and content of a streamed answer. */
function streamedWhole(policy: TagPolicy, pieces: string[]): { reasoning: string; content: string } {
  const whole = { reasoning: '', content: '' };
  for (const shown of streamed(policy, pieces))
    for (const part of shown) {
      if (part.startsWith('r:')) whole.reasoning += part.slice(2);
      else whole.content += part.slice(2);
    }
  return whole;
}

/** A non-streamed answer with this content, split. */
function whole(policy: TagPolicy, content: string, reasoning?: string): ChatCompletion['choices'][number]['message'] {
  const completion: ChatCompletion = {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(reasoning ? { reasoning_content: reasoning } : {}) },
        finish_reason: 'stop',
      },
    ],
  };
  splitReasoningTags(completion, policy);
  return completion.choices[0]!.message;
}

/** llama-server `--reasoning-format none`, thinking on: the tiny Qwen3's answer, one token a chunk. */
const LLAMA_THINKING = ['<think>', 'Let', ' me', ' think', '.', '</think>', '\n\n', '\n', 'Hello', ' world', '!'];

t.test(
  'streamed: an answer that opens with <think> has its reasoning moved to reasoning_content, tags never shown',
  async (t) => {
    t.same(streamed(AUTO, LLAMA_THINKING), [
      [],
      ['r:Let'],
      ['r: me'],
      ['r: think'],
      ['r:.'],
      [],
      [],
      [],
      ['c:Hello'],
      ['c: world'],
      ['c:!'],
    ]);
  },
);

t.test('streamed: only what may still be part of a tag is held back, however the tags are split', async (t) => {
  t.same(streamed(AUTO, ['\n<th', 'ink>\nLet', ' me</th', 'ink>\n\nHi', ' there']), [
    [],
    ['r:Let'],
    ['r: me'],
    ['c:Hi'],
    ['c: there'],
  ]);
  // A `<` that is no tag goes on with the next piece; whitespace before a possible `</think>` waits with it.
  t.same(streamed(AUTO, ['<think>a <', 'b', ' \n', '</', 'x']), [['r:a'], ['r: <b'], [], [], ['r: \n</x']]);
});

t.test(
  'streamed: with thinking off the echoed empty <think></think> block is cut and nothing becomes reasoning',
  async (t) => {
    t.same(streamed(THINKING_OFF, ['<think>\n\n</think>\n\nHello', ' world!']), [['c:Hello'], ['c: world!']]);
    t.same(streamed(THINKING_OFF, ['<think>', '\n\n', '</think>', '\n\n', 'Hello']), [[], [], [], [], ['c:Hello']]);
  },
);

t.test('streamed: with thinking off a <think> block with text in it stays text', async (t) => {
  t.same(streamed(THINKING_OFF, ['<think>', '\n', 'hm', '</think>', 'Hi']), [
    [],
    [],
    ['c:<think>\nhm'],
    ['c:</think>'],
    ['c:Hi'],
  ]);
});

t.test('auto: content that does not open with a tag is text, a later </think> included', async (t) => {
  t.same(streamed(AUTO, ['Hello', ' <think>', 'x', '</think>']), [
    ['c:Hello'],
    ['c: <think>'],
    ['c:x'],
    ['c:</think>'],
  ]);
  t.same(whole(AUTO, 'Hello <think>x</think> y'), { role: 'assistant', content: 'Hello <think>x</think> y' });
});

t.test('auto: a </think> before any other text closes an empty reasoning, and is cut', async (t) => {
  t.same(streamed(AUTO, ['\n', '</think>', '\n\n', 'Hi']), [[], [], [], ['c:Hi']]);
  t.same(whole(AUTO, '\n</think>\n\nHi'), { role: 'assistant', content: 'Hi' });
});

t.test('open: the content is reasoning from its start until </think> (the template opened <think>)', async (t) => {
  t.same(streamed(OPEN, ['Okay', ',', ' so', '</think>', '\n\n', 'Yes']), [
    ['r:Okay'],
    ['r:,'],
    ['r: so'],
    [],
    [],
    ['c:Yes'],
  ]);
  t.same(whole(OPEN, '\nOkay, so\n</think>\n\nYes'), {
    role: 'assistant',
    content: 'Yes',
    reasoning_content: 'Okay, so',
  });
  t.same(whole(OPEN, '<think>\nOkay</think>Yes'), { role: 'assistant', content: 'Yes', reasoning_content: 'Okay' });
});

t.test('open with thinking off: as auto, only an echoed empty block is cut', async (t) => {
  const policy = tagPolicy('open', { model: 'm', messages: [], gateway: { enable_thinking: false } }, true)!;
  t.same(whole(policy, 'Okay</think>Yes'), { role: 'assistant', content: 'Okay</think>Yes' });
  t.same(whole(policy, '<think>\n\n</think>\n\nYes'), { role: 'assistant', content: 'Yes' });
});

t.test('reasoning the server parsed itself: the content passes untouched', async (t) => {
  t.same(streamed(AUTO, [{ reasoning_content: 'hm' }, '<think>', 'x']), [['r:hm'], ['c:<think>'], ['c:x']]);
  t.same(streamed(AUTO, [{ reasoning: 'hm' }, '\n\n<think>']), [[], ['c:\n\n<think>']]);
  t.same(whole(AUTO, '<think>x</think>y', 'hm'), {
    role: 'assistant',
    content: '<think>x</think>y',
    reasoning_content: 'hm',
  });
});

t.test('tool calls are never touched; whitespace held before one goes out with it', async (t) => {
  const call = { index: 0, id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{}' } };
  const tags = new ReasoningTags(AUTO);
  const first: ChatChunkChoice = { index: 0, delta: { content: '\n' }, finish_reason: null };
  const second: ChatChunkChoice = { index: 0, delta: { tool_calls: [call] }, finish_reason: 'tool_calls' };
  tags.see(chunk([first]).chunk);
  tags.see(chunk([second]).chunk);
  t.equal(first.delta.content, '');
  t.same(second.delta, { content: '\n', tool_calls: [call] });
  t.same(streamed(AUTO, ['<think>', 'a', '</think>', { tool_calls: [call] }]), [[], ['r:a'], [], []]);
});

t.test('a stream that ends inside the reasoning sends what it held back as reasoning', async (t) => {
  t.same(streamed(AUTO, ['<think>', 'a', ' </th']), [[], ['r:a'], ['r: </th']]);
  t.same(streamed(AUTO, ['<thi']), [['c:<thi']]);
});

t.test('not streamed: the same split, the answer null when nothing is left', async (t) => {
  t.same(whole(AUTO, '<think>Let me think.</think>\n\n\nHello world!'), {
    role: 'assistant',
    content: 'Hello world!',
    reasoning_content: 'Let me think.',
  });
  t.same(whole(AUTO, '<think>\nhm\n</think>\n\n'), { role: 'assistant', content: null, reasoning_content: 'hm' });
  t.same(whole(THINKING_OFF, '<think>\n\n</think>\n\nHello'), { role: 'assistant', content: 'Hello' });
  t.same(whole(AUTO, '<think>cut by max_tokens'), {
    role: 'assistant',
    content: null,
    reasoning_content: 'cut by max_tokens',
  });
});

t.test('streamed and not streamed split alike, wherever the chunks are cut', async (t) => {
  const answers = [
    '<think>\nLet me think.\n</think>\n\n\nHello world!',
    ' <think></think>Hi',
    'Hi </think> there',
    '</think>\nHi',
    '<think>a</thinkx</think>b',
    '<thinking>no</thinking>',
  ];
  for (const policy of [AUTO, OPEN, THINKING_OFF])
    for (const answer of answers) {
      const body = whole(policy, answer);
      const expected = { reasoning: body.reasoning_content ?? '', content: body.content ?? '' };
      const differing: string[] = [];
      for (let i = 0; i <= answer.length; i++)
        for (let j = i; j <= answer.length; j++) {
          const got = streamedWhole(policy, [answer.slice(0, i), answer.slice(i, j), answer.slice(j)]);
          if (got.reasoning !== expected.reasoning || got.content !== expected.content) differing.push(`${i},${j}`);
        }
      t.same(differing, [], `${JSON.stringify(answer)} (${JSON.stringify(policy)}): cuts that split otherwise`);
    }
});

t.test('the policy: off splits nothing; thinking counts as off only when the server got the switch', async (t) => {
  const request = (enable?: boolean): ChatRequest => ({
    model: 'm',
    messages: [],
    ...(enable === undefined ? {} : { gateway: { enable_thinking: enable } }),
  });
  t.equal(tagPolicy('off', request(), true), undefined);
  t.same(tagPolicy('auto', request(), true), { open: false, thinking: true });
  t.same(tagPolicy('auto', request(false), true), { open: false, thinking: false });
  t.same(tagPolicy('auto', request(false), false), { open: false, thinking: true });
  t.same(tagPolicy('open', request(true), true), { open: true, thinking: true });
});
