// I10 (shared/research/real-upstream-llama.md): llama-server's parser leaves the content "\n" after
// </think>; the gateway cuts it (it opens the answer), and the chunk that carried it used to reach the
// client anyway: chat's openai profile showed {"delta":{},"finish_reason":null} between the reasoning and
// the text. A chunk left with nothing reaches no client, in any dialect.
import t from 'tap';
import { startScriptedStack } from '../helpers/scripted-stack.js';
import { readSse } from '../kit/sse-reader.js';
import { llamaStream } from '../fakes/scripted-upstream.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** llama-server (default reasoning format) streaming the tiny Qwen3's answer, as recorded. */
const ANSWER = [
  { reasoning_content: 'Let' },
  { reasoning_content: ' me' },
  { reasoning_content: ' think' },
  { reasoning_content: '.' },
  { content: '\n' },
  { content: 'Hello' },
  { content: ' world' },
  { content: '!' },
];

t.test('I10 regression: no empty chunk between the reasoning and the text, in any dialect', async (t) => {
  const { stack } = await startScriptedStack(t, () => ({ chunks: llamaStream(ANSWER, 'stop', [9, 11]) }));
  const frames = async (path: string, body: Json, wire: string): Promise<Json[]> => {
    const response = await fetch(`${stack.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-wire': wire },
      body: JSON.stringify({ model: 'qwen3-8b', stream: true, ...body }),
    });
    t.equal(response.status, 200, `${path} ${wire}`);
    return readSse(await response.text())
      .filter((frame) => frame.data !== '[DONE]')
      .map((frame) => ({ event: frame.event, ...(JSON.parse(frame.data) as Json) }));
  };
  const messages = [{ role: 'user', content: 'Hello' }];

  for (const wire of ['openai', 'spec']) {
    const chat = await frames('/v1/chat/completions', { messages }, wire);
    const empty = chat.filter((frame) =>
      (frame.choices ?? []).some(
        (choice: Json) => Object.keys(choice.delta).length === 0 && choice.finish_reason == null,
      ),
    );
    t.same(empty, [], `chat (${wire}): no choice with an empty delta and no finish`);
    const deltas = chat.flatMap((frame) => (frame.choices ?? []).map((choice: Json) => choice.delta));
    t.equal(deltas.map((delta) => delta.content ?? '').join(''), 'Hello world!');
  }

  const anthropic = await frames('/v1/messages', { max_tokens: 100, messages }, 'spec');
  const blocks = anthropic.filter((frame) => frame.type === 'content_block_start');
  t.same(
    blocks.map((frame) => frame.content_block.type),
    ['thinking', 'text'],
  );
  t.same(
    anthropic.filter((frame) => frame.type === 'content_block_delta' && frame.delta.text === ''),
    [],
    'messages: no empty text delta',
  );

  const responses = await frames('/v1/responses', { input: 'Hello' }, 'spec');
  t.same(
    responses.filter((frame) => frame.type === 'response.output_text.delta' && frame.delta === ''),
    [],
    'responses: no empty text delta',
  );
});
