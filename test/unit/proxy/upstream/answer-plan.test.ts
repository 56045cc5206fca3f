// How the terminal reads each request's answer, per flavor (proxy/upstream/answer-plan.ts).
import t from 'tap';
import type { ChatRequest } from '../../../../core/canonical.js';
import { answerPlan } from '../../../../proxy/upstream/answer-plan.js';
import { upstreamFields, type UpstreamFlavor } from '../../../../proxy/upstream/request-fields.js';

const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});
const plan = (flavor: UpstreamFlavor, extra: Partial<ChatRequest> = {}) =>
  answerPlan(request(extra), upstreamFields(flavor, []));

t.test('a streamed request is read as a stream, on every flavor', async (t) => {
  for (const flavor of ['vllm', 'llama-server', 'openai'] as const)
    t.match(plan(flavor, { stream: true }), { upstreamStream: true, whole: false }, flavor);
});

t.test(
  'a non-streamed request is read as a stream and handed on whole where the server reports a running usage',
  async (t) => {
    for (const flavor of ['vllm', 'sglang', 'llama-server'] as const)
      t.match(plan(flavor), { upstreamStream: true, whole: true }, flavor);
    for (const flavor of ['tgi', 'ollama', 'openai'] as const)
      t.match(plan(flavor), { upstreamStream: false, whole: false }, `${flavor}: a plain non-streamed call`);
  },
);

t.test('the gateway matches the stop strings where the server does not name the one that matched', async (t) => {
  t.equal(plan('vllm', { stop: ['x'] }).stops, undefined, 'vLLM: stop_reason');
  t.equal(plan('sglang', { stop: ['x'] }).stops, undefined, 'SGLang: matched_stop');
  for (const flavor of ['llama-server', 'tgi', 'ollama', 'openai'] as const) {
    t.same(plan(flavor, { stop: 'x' }).stops, ['x'], flavor);
    t.match(plan(flavor, { stop: ['x', 'y'] }), { upstreamStream: true, whole: true, stops: ['x', 'y'] }, flavor);
  }
  t.equal(plan('openai').stops, undefined, 'no stop, nothing to match');
  t.match(
    plan('openai', { stop: [] }),
    { upstreamStream: false, stops: [] },
    'an empty list: nothing to match or send',
  );
});
