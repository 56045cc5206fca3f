// x-sim-fault error:N on the vLLM flavor: a server that fails in the middle of an answer sends its
// error as a data event in its own error shape, then [DONE], as vLLM's serving_chat does.
import t from 'tap';
import { post, simFor, sseData } from './sim-client.js';

t.test('x-sim-fault error:N (vLLM): N chunks, then data: {"error": …}, then [DONE]', async (t) => {
  const sim = await simFor(t);
  const res = await post(
    sim,
    '/v1/chat/completions',
    { stream: true, messages: [{ role: 'user', content: 'echo: one two three four' }] },
    { 'x-sim-fault': 'error:2' },
  );
  const data = sseData(await res.text());
  t.equal(data.length, 4);
  t.match(JSON.parse(data[2] ?? ''), { error: { type: 'InternalServerError', param: null, code: 500 } });
  t.equal(data[3], '[DONE]');
});
