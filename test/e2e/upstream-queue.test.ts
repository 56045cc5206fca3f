// A request that waits for a free upstream connection waits at most `upstream.queue_timeout_ms`, then
// gets 503 upstream_overloaded with retry-after in its dialect, and is never sent upstream. One
// connection and a stalled stream (sim fault `stall:N`) make every other request wait.
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({
    yaml: 'upstream:\n  connections: 1\n  queue_timeout_ms: 50\n  forward_headers: [x-sim-fault]\n',
  });
});
t.teardown(() => stack.close());

const chat = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] };
const messages = { model: 'qwen3-8b', max_tokens: 20, messages: [{ role: 'user', content: 'echo: hi' }] };

function post(
  path: string,
  body: object,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

t.test(
  'regression: a request that waited queue_timeout_ms for an upstream connection gets 503 upstream_overloaded with retry-after, and is abandoned',
  async (t) => {
    // The one connection: a stream the sim starts and then never continues.
    const stalled = new AbortController();
    const first = await post(
      '/v1/chat/completions',
      { ...chat, stream: true },
      { headers: { 'x-sim-fault': 'stall:1' }, signal: stalled.signal },
    );
    t.equal(first.status, 200, 'the stalled stream holds the connection');

    const waitingChat = await post('/v1/chat/completions', chat);
    t.equal(waitingChat.status, 503);
    t.equal(waitingChat.headers.get('retry-after'), '1');
    t.match(
      await waitingChat.json(),
      { error: { type: 'server_error', code: 'upstream_overloaded' } },
      'in the chat dialect',
    );

    const waitingStream = await post('/v1/messages', { ...messages, stream: true });
    t.equal(waitingStream.status, 503, 'a stream too, before its first byte');
    t.ok(waitingStream.headers.get('retry-after'));
    t.match(
      await waitingStream.json(),
      { type: 'error', error: { type: 'overloaded_error' } },
      'in the message dialect',
    );

    t.equal(stack.sim.stats().requests, 1, 'only the stalled request reached the upstream');
    stalled.abort();
    await stack.sim.until((stats) => stats.aborted === 1);
    const after = await post('/v1/chat/completions', chat);
    t.equal(after.status, 200, 'the connection serves the next request once free');
    await after.arrayBuffer();
    t.equal(stack.sim.stats().requests, 2, 'the abandoned requests were never sent');
  },
);
