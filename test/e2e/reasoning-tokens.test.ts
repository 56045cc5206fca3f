// I11 (shared/research/real-upstream-llama.md): the responses dialect's
// usage.output_tokens_details.reasoning_tokens was always 0, reasoning item or not. llama-server (like
// vLLM) does not report them; the gateway counts them (proxy/upstream/reasoning-count.ts).
import t from 'tap';
import { startScriptedStack } from '../helpers/scripted-stack.js';
import { readSse } from '../kit/sse-reader.js';
import { llamaChunk, llamaUsageChunk } from '../fakes/scripted-upstream.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The tiny Qwen3's answer as llama-server streams it with its reasoning parser: `<think>` (token 1) makes no
 * diff, so its chunk is the role chunk alone; tokens 2 to 5 are the reasoning; `</think>` and the newlines
 * (6 to 8) make no chunk either; then the text (9 to 11). With `timings_per_token` every chunk says how
 * many tokens were generated so far.
 */
function answer(timings: boolean): object[] {
  const at = (predicted: number): [number, number] | undefined => (timings ? [9, predicted] : undefined);
  return [
    llamaChunk({ role: 'assistant', content: null }, null, at(1)),
    ...['Let', ' me', ' think', '.'].map((text, i) => llamaChunk({ reasoning_content: text }, null, at(i + 2))),
    ...['Hello', ' world', '!'].map((text, i) => llamaChunk({ content: text }, null, at(i + 9))),
    llamaChunk({}, 'stop'),
    llamaUsageChunk(9, 11),
  ];
}

t.test('I11 regression: responses counts the reasoning tokens, streamed and not; chat shows them too', async (t) => {
  const { stack } = await startScriptedStack(t, (body) => ({ chunks: answer(body.timings_per_token === true) }));
  const post = async (path: string, body: Json): Promise<string> => {
    const response = await fetch(`${stack.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-8b', ...body }),
    });
    t.equal(response.status, 200, path);
    return response.text();
  };

  const streamed = readSse(await post('/v1/responses', { input: 'Hello', stream: true }))
    .map((frame) => JSON.parse(frame.data) as Json)
    .find((event) => event.type === 'response.completed')!;
  t.same(
    streamed.response.usage.output_tokens_details,
    { reasoning_tokens: 5 },
    'streamed: the tokens generated when the reasoning ended (timings_per_token)',
  );
  const whole = JSON.parse(await post('/v1/responses', { input: 'Hello' })) as Json;
  t.same(whole.usage.output_tokens_details, { reasoning_tokens: 5 }, 'not streamed (read as a stream)');
  const chat = JSON.parse(
    await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'Hello' }] }),
  ) as Json;
  t.same(chat.usage.completion_tokens_details, { reasoning_tokens: 5 });
});
