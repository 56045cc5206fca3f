// The node's bound on the request bodies it holds at once (server.bodies_in_flight_bytes): a body the
// budget cannot hold is a 503 with retry-after in the route's dialect, and a request's end gives its bytes back.
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({
    yaml: [
      'server:',
      '  body_limit_bytes: 2048',
      '  bodies_in_flight_bytes: 3000',
      'upstream:',
      '  forward_headers: [x-sim-itl-ms, x-sim-output-tokens]',
    ].join('\n'),
  });
});
t.teardown(() => stack.close());

const MODEL = 'qwen3-8b';

/** A chat request whose JSON is about `bytes` long. */
function chatBody(bytes: number, stream = false): string {
  const body = { model: MODEL, stream, messages: [{ role: 'user', content: '' }] };
  const content = 'x'.repeat(bytes - JSON.stringify(body).length);
  return JSON.stringify({ ...body, messages: [{ role: 'user', content }] });
}

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

t.test(
  "a body the node's budget cannot hold is a 503 with retry-after in the route's dialect; a request's end gives its bytes back",
  async (t) => {
    // 2,000 bytes held while this stream runs (20 tokens 200 ms apart: the requests below are sent meanwhile).
    const held = await post('/v1/chat/completions', chatBody(2000, true), {
      'x-sim-itl-ms': '200',
      'x-sim-output-tokens': '20',
    });
    t.equal(held.status, 200);

    const chat = await post('/v1/chat/completions', chatBody(1500));
    t.equal(chat.status, 503);
    t.equal(chat.headers.get('retry-after'), '1');
    t.match(await chat.json(), { error: { type: 'server_error', code: 'bodies_in_flight', message: /retry shortly/ } });
    const messages = await post('/v1/messages', chatBody(1500));
    t.equal(messages.status, 503);
    t.match(await messages.json(), { type: 'error', error: { type: 'overloaded_error' } });
    t.equal((await post('/v1/chat/completions', chatBody(900))).status, 200, 'a body that fits is read');

    // The stream's end is written before its exchange ends, and the exchange ends before this process reads it.
    t.match(await held.text(), /\[DONE\]|message_stop/);
    t.equal((await post('/v1/chat/completions', chatBody(1500))).status, 200, 'the ended request gave its bytes back');
  },
);
