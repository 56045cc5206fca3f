// The prefill's cost (the option prefillUsPerToken, x-sim-prefill-us-per-token): the first byte of an answer
// leaves ttftMs + uncached prompt tokens × prefillUsPerToken / 1000 ms after the request, so a prompt the prefix
// cache holds answers sooner. Read without a clock: the delay the sim took is in its request log (and, for
// llama-server, in timings.prompt_ms).
import t from 'tap';
import { firstTokenMs } from '../../sim/first-token.js';
import type { RunningSim } from '../../sim/server.js';
import { llamaComplete, llamaSimFor, llamaStream } from './llama-client.js';
import { complete, post, simFor, streamChat, MODEL } from './sim-client.js';

const conversation = [
  {
    role: 'system',
    content:
      'You are the assistant of a ship chandler in Brest. Answer in one short sentence, name the shelf, ' +
      'and never promise a delivery date: the stock changes every morning when the boats come in.',
  },
  { role: 'user', content: 'echo: Rope is on shelf four.' },
];

/** The delay the sim took before the first byte of its last answer. */
function lastFirstTokenMs(sim: RunningSim): number | undefined {
  return sim.requests().at(-1)?.firstTokenMs;
}

t.test('the first token waits ttftMs plus the prefill of the uncached prompt tokens', async (t) => {
  const cost = { ttftMs: 5, prefillUsPerToken: 250 };
  t.equal(firstTokenMs(cost, 1000, 0), 255, 'nothing cached: every token prefilled');
  t.equal(firstTokenMs(cost, 1000, 992), 7, 'the cached tokens cost nothing');
  t.equal(firstTokenMs(cost, 10, 10), 5, 'a prompt held whole costs the TTFT alone');
  t.equal(firstTokenMs({ ttftMs: 5, prefillUsPerToken: 0 }, 1000, 0), 5, 'no prefill cost: the TTFT as before');
  t.equal(firstTokenMs({ ttftMs: 0, prefillUsPerToken: 3 }, 7, 0), 0.021, 'a fraction of a millisecond is kept');
});

t.test('vLLM: the prefix cache shortens the next turn, streamed and not', async (t) => {
  const sim = await simFor(t, { ttftMs: 2, prefillUsPerToken: 100 });
  const first = await complete(sim, { messages: conversation });
  t.equal(first.usage.prompt_tokens_details.cached_tokens, 0);
  t.equal(lastFirstTokenMs(sim), 2 + (first.usage.prompt_tokens * 100) / 1000, 'the whole prompt prefilled');

  const again = await streamChat(sim, { messages: conversation, stream_options: { include_usage: true } });
  const usage = again.chunks.at(-1)?.usage;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  t.ok(cached > 0, 'the repeated prompt hits the cache');
  t.equal(
    lastFirstTokenMs(sim),
    2 + (((usage?.prompt_tokens ?? 0) - cached) * 100) / 1000,
    'only the uncached tail prefilled',
  );
});

t.test('without the option the first token waits ttftMs, as before', async (t) => {
  const sim = await simFor(t, { ttftMs: 3 });
  await complete(sim, { messages: conversation });
  t.equal(lastFirstTokenMs(sim), 3);
  await streamChat(sim, { messages: conversation });
  t.equal(lastFirstTokenMs(sim), 3);
});

t.test('x-sim-prefill-us-per-token overrides the option for one request', async (t) => {
  const sim = await simFor(t, { prefillUsPerToken: 100 });
  const body = await complete(sim, { messages: conversation }, { 'x-sim-prefill-us-per-token': '40' });
  t.equal(lastFirstTokenMs(sim), (body.usage.prompt_tokens * 40) / 1000);
  const bad = await post(
    sim,
    '/v1/chat/completions',
    { model: MODEL, messages: conversation },
    { 'x-sim-prefill-us-per-token': '-1' },
  );
  t.equal(bad.status, 400, 'a malformed value is a 400');
});

t.test('the option is a whole number of microseconds', async (t) => {
  await t.rejects(simFor(t, { prefillUsPerToken: 1.5 }), /prefillUsPerToken must be an integer/);
  await t.rejects(simFor(t, { prefillUsPerToken: -1 }), /prefillUsPerToken must be an integer/);
});

t.test('llama-server: prompt_ms is the TTFT plus the prefill of prompt_n, streamed and not', async (t) => {
  const sim = await llamaSimFor(t, { ttftMs: 1, prefillUsPerToken: 200 });
  const first = await llamaComplete(sim, { messages: conversation });
  t.equal(first.timings.prompt_ms, 1 + ((first.timings.prompt_n ?? 0) * 200) / 1000);
  t.equal(lastFirstTokenMs(sim), first.timings.prompt_ms);

  const again = await llamaStream(sim, { messages: conversation });
  const timings = again.chunks.at(-1)?.timings ?? {};
  t.equal(timings.prompt_n, 1, 'the slot held all but the last token');
  t.equal(timings.prompt_ms, 1 + 200 / 1000);
  t.equal(lastFirstTokenMs(sim), timings.prompt_ms);
});
