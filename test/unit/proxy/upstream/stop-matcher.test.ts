// Stop strings matched in the gateway for the flavors that do not say which one ended an answer
// (proxy/upstream/stop-matcher.ts): the content only, held back only as far as it may begin a stop
// string, cut at the first one completed, the choice then ending with `stop` and the string.
import t from 'tap';
import type { ChatChunk, ChatChunkChoice, ChatCompletion, ChatDelta } from '../../../../core/canonical.js';
import { cutAtStops, StopMatcher } from '../../../../proxy/upstream/stop-matcher.js';
import { chunk, USAGE } from '../../../fixtures/chunks.js';

type Step = ChatDelta | ChatChunkChoice | ChatChunk;

/** What goes on from these chunks (deltas of choice 0, whole choices, or whole chunks), the end flushed. */
function run(stops: string[], steps: Step[]): { out: ChatChunk[]; matcher: StopMatcher } {
  const matcher = new StopMatcher(stops, 1);
  const out: ChatChunk[] = [];
  for (const step of steps) matcher.see(asChunk(step), (passed) => void out.push(structuredClone(passed)));
  matcher.flush((passed) => void out.push(structuredClone(passed)));
  return { out, matcher };
}

function asChunk(step: Step): ChatChunk {
  if ('choices' in step) return structuredClone(step);
  if ('delta' in step) return chunk([structuredClone(step)]).chunk;
  return chunk([{ index: 0, delta: { ...step } }]).chunk;
}

/** The content that went on, joined. */
const text = (out: ChatChunk[]): string =>
  out.map((passed) => passed.choices.map((choice) => choice.delta.content ?? '').join('')).join('');

/** The content of each chunk that went on. */
const pieces = (out: ChatChunk[]): string[] => out.map((passed) => passed.choices[0]?.delta.content ?? '');

/** The last choice that went on: where the end is. */
const last = (out: ChatChunk[]): ChatChunkChoice | undefined => out.at(-1)?.choices.at(-1);

t.test(
  'a stop string inside one chunk: the text is cut before it, the choice ends with stop and the string',
  async (t) => {
    const { out, matcher } = run(['world'], [{ content: 'Hello world, and more' }]);
    t.equal(text(out), 'Hello ');
    t.match(last(out), { finish_reason: 'stop', stop_reason: 'world' });
    t.ok(matcher.over, 'nothing more is needed from the upstream');
  },
);

t.test('a stop string split over several chunks is found', async (t) => {
  const { out } = run(['world'], [{ content: 'Hello w' }, { content: 'o' }, { content: 'r' }, { content: 'ld!' }]);
  t.equal(text(out), 'Hello ');
  t.match(last(out), { finish_reason: 'stop', stop_reason: 'world' });
});

t.test(
  'a stop string that begins in one chunk and ends in the next: its start is held back, then dropped',
  async (t) => {
    const { out } = run(['STOP'], [{ content: 'abc ST' }, { content: 'OP def' }]);
    t.same(pieces(out), ['abc ', ''], 'nothing of the stop string went on');
    t.match(last(out), { finish_reason: 'stop', stop_reason: 'STOP' });
  },
);

t.test('only the tail that may begin a stop string is held back, and it goes on once it cannot', async (t) => {
  const { out } = run(['world'], [{ content: 'Hello wo' }, { content: 'nderful' }]);
  t.same(pieces(out), ['Hello ', 'wonderful']);
  t.notOk(last(out)?.finish_reason, 'no end');
});

t.test('several stop strings: the first one completed wins, and on a tie the first in the list', async (t) => {
  t.match(last(run(['world', 'lo'], [{ content: 'Hello world' }]).out), { stop_reason: 'lo' });
  t.equal(text(run(['world', 'lo'], [{ content: 'Hello world' }]).out), 'Hel');
  // "abcd" starts first, but "c" is complete one character earlier: a server scanning token by token stops there.
  t.match(last(run(['abcd', 'c'], [{ content: 'xabcd' }]).out), { stop_reason: 'c' });
  // Both end at the same character.
  t.match(last(run(['bc', 'abc'], [{ content: 'abc' }]).out), { stop_reason: 'bc' });
  t.match(last(run(['abc', 'bc'], [{ content: 'abc' }]).out), { stop_reason: 'abc' });
});

t.test('stop strings that overlap themselves are found wherever they complete', async (t) => {
  const { out } = run(['ababc'], [{ content: 'abab' }, { content: 'abc tail' }]);
  t.equal(text(out), 'ab');
  t.match(last(out), { stop_reason: 'ababc' });
  t.equal(text(run(['aab'], [{ content: 'xaa' }, { content: 'ab' }]).out), 'xa');
});

t.test('a held-back start goes on at the end: with the finish, or when the stream ends without one', async (t) => {
  const finished = run(['world'], [{ content: 'Hello wor' }, { index: 0, delta: {}, finish_reason: 'stop' }]);
  t.equal(text(finished.out), 'Hello wor');
  t.match(last(finished.out), { finish_reason: 'stop' });
  t.equal(last(finished.out)?.stop_reason, undefined, 'the end of turn, not a stop string');
  t.notOk(finished.matcher.over, 'the upstream ended the answer itself');
  t.equal(text(run(['world'], [{ content: 'Hello wor' }]).out), 'Hello wor', 'flushed');
});

t.test('the reasoning is never scanned: a stop string in it cuts nothing', async (t) => {
  const { out, matcher } = run(
    ['think', '</'],
    [{ reasoning_content: '<think>I think' }, { reasoning_content: '</think>' }, { content: 'Answer.' }],
  );
  t.same(
    out.map((passed) => passed.choices[0]?.delta.reasoning_content),
    ['<think>I think', '</think>', undefined],
  );
  t.equal(text(out), 'Answer.');
  t.notOk(matcher.over);
});

t.test('content held back before reasoning goes on first, on its own', async (t) => {
  const { out } = run(['world'], [{ content: 'Hi wo' }, { reasoning_content: 'hm' }, { content: 'rld' }]);
  t.same(
    out.map((passed) => passed.choices[0]?.delta),
    [{ content: 'Hi ' }, { content: 'wo' }, { reasoning_content: 'hm' }, { content: 'rld' }],
    'a stop string does not span the reasoning',
  );
});

t.test('tool calls pass untouched, and a held-back start goes on before them', async (t) => {
  const call = {
    index: 0,
    id: 'call_a',
    type: 'function' as const,
    function: { name: 'stop', arguments: '{"a":"world"}' },
  };
  const { out, matcher } = run(['world', 'stop'], [{ content: 'Sure, wor' }, { tool_calls: [call] }]);
  t.same(out.at(-1)?.choices[0]?.delta, { content: 'wor', tool_calls: [call] });
  t.equal(text(out), 'Sure, wor');
  t.notOk(matcher.over);
});

t.test(
  'a choice ended at a stop string gets nothing more of what the upstream sends; the usage still goes on',
  async (t) => {
    const { out } = run(
      ['world'],
      [
        { content: 'Hello world' },
        { content: ' again' },
        { index: 0, delta: {}, finish_reason: 'stop' },
        chunk([], USAGE).chunk,
      ],
    );
    t.equal(out.length, 2, 'the cut chunk and the usage chunk');
    t.equal(text(out), 'Hello ');
    t.same(out[1]?.usage, USAGE);
  },
);

t.test('the running usage of a chunk held back whole goes on with the next chunk', async (t) => {
  const running = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 };
  const { out } = run(['world'], [chunk([{ index: 0, delta: { content: 'wor' } }], running).chunk, { content: 'k' }]);
  t.equal(out.length, 1);
  t.same(out[0]?.usage, running);
  t.equal(text(out), 'work');
});

t.test('a chunk with nothing to hold passes as it came', async (t) => {
  const role = { index: 0, delta: { role: 'assistant' as const, content: null }, finish_reason: null };
  const { out } = run(['world'], [role]);
  t.same(out[0]?.choices[0], role);
});

t.test('an empty stop string never matches', async (t) => {
  const { out, matcher } = run([''], [{ content: 'Hello' }]);
  t.equal(text(out), 'Hello');
  t.notOk(matcher.over);
});

t.test('with several choices the answer is over once each has ended', async (t) => {
  const matcher = new StopMatcher(['x'], 2);
  const out: ChatChunk[] = [];
  matcher.see(chunk([{ index: 0, delta: { content: 'axb' } }]).chunk, (passed) => void out.push(passed));
  t.notOk(matcher.over, 'the second choice goes on');
  matcher.see(
    chunk([{ index: 1, delta: { content: 'done' }, finish_reason: 'stop' }]).chunk,
    (passed) => void out.push(passed),
  );
  t.ok(matcher.over);
});

t.test('a whole answer (a server that answered a body) is cut the same way', async (t) => {
  const completion: ChatCompletion = {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello world', reasoning_content: 'world peace' },
        finish_reason: 'stop',
      },
    ],
  };
  cutAtStops(completion, ['world']);
  t.match(completion.choices[0], {
    message: { content: 'Hello ', reasoning_content: 'world peace' },
    finish_reason: 'stop',
    stop_reason: 'world',
  });
});
