// The output budget of /v1/messages end to end: dialects.messages.max_tokens and max_tokens_over_limit.
// `reject` (the spec's default) refuses a request over the limit with a 400 that names the setting;
// `clamp` serves it with the limit, so the upstream is given the limit and an answer cut there ends
// with stop_reason max_tokens, truthfully. The sim's answers are 24 tokens long unless max_tokens cuts them.
import t from 'tap';
import { readSse } from '../kit/sse-reader.js';
import { startStack, type Stack } from '../helpers/stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LIMIT = 5;

function ask(stack: Stack, maxTokens: unknown, stream = false): Promise<Response> {
  return fetch(`${stack.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'qwen3-8b',
      max_tokens: maxTokens,
      stream,
      messages: [{ role: 'user', content: 'Tell me a story.' }],
    }),
  });
}

/** The max_tokens the upstream was given for the last request it received. */
function upstreamMaxTokens(stack: Stack): unknown {
  const body = stack.sim.requests().at(-1)!.body as Json;
  return body.max_completion_tokens ?? body.max_tokens;
}

t.test('reject (the default)', async (t) => {
  const stack = await startStack({ yaml: `dialects:\n  messages:\n    max_tokens: ${LIMIT}\n` });
  t.teardown(() => stack.close());

  t.test('a max_tokens over the limit is a 400 that names the setting and the client variable', async (t) => {
    const before = stack.sim.requests().length;
    const response = await ask(stack, 32000);
    t.equal(response.status, 400);
    t.same(await response.json(), {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `max_tokens: must be <= ${LIMIT} (the gateway's dialects.messages.max_tokens; clients with higher defaults: Claude Agent SDK and Claude Code read CLAUDE_CODE_MAX_OUTPUT_TOKENS)`,
      },
    });
    t.equal(stack.sim.requests().length, before, 'nothing reaches the upstream');
  });

  t.test('a max_tokens at the limit is served', async (t) => {
    t.equal((await ask(stack, LIMIT)).status, 200);
    t.equal(upstreamMaxTokens(stack), LIMIT);
  });
});

t.test('clamp', async (t) => {
  const stack = await startStack({
    yaml: `dialects:\n  messages:\n    max_tokens: ${LIMIT}\n    max_tokens_over_limit: clamp\n`,
  });
  t.teardown(() => stack.close());

  t.test(
    'a max_tokens over the limit is served, the upstream given the limit, and the cut says max_tokens',
    async (t) => {
      const response = await ask(stack, 32000);
      t.equal(response.status, 200);
      t.equal(upstreamMaxTokens(stack), LIMIT);
      const body = (await response.json()) as Json;
      t.equal(body.stop_reason, 'max_tokens');
      t.equal(body.usage.output_tokens, LIMIT);
    },
  );

  t.test('streamed: the same, its message_delta says max_tokens', async (t) => {
    const response = await ask(stack, 32000, true);
    t.equal(response.status, 200);
    const delta = readSse(await response.text())
      .filter((frame) => frame.event === 'message_delta')
      .map((frame) => JSON.parse(frame.data) as Json)
      .at(-1)!;
    t.equal(upstreamMaxTokens(stack), LIMIT);
    t.equal(delta.delta.stop_reason, 'max_tokens');
    t.equal(delta.usage.output_tokens, LIMIT);
  });

  t.test('a clamp never raises a smaller max_tokens', async (t) => {
    const response = await ask(stack, 3);
    t.equal(response.status, 200);
    t.equal(upstreamMaxTokens(stack), 3);
    t.equal(((await response.json()) as Json).stop_reason, 'max_tokens');
  });

  t.test('a non-integer or negative max_tokens is still a 400 naming the field', async (t) => {
    for (const maxTokens of [1.5, -1, 0, '32000']) {
      const response = await ask(stack, maxTokens);
      t.equal(response.status, 400, `max_tokens ${JSON.stringify(maxTokens)}`);
      const body = (await response.json()) as Json;
      t.match(body.error.message, /max_tokens/, `max_tokens ${JSON.stringify(maxTokens)}`);
    }
  });
});
