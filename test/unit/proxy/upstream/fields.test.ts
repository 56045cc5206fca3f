// The request fields each upstream flavor gets, decided at start.
import t from 'tap';
import { UPSTREAM_FLAVORS, upstreamFields } from '../../../../proxy/upstream/request-fields.js';

/** Fields that change what a server renders or how long it generates, or that are the gateway's own. */
const NEVER_BY_DEFAULT = [
  'chat_template',
  'chat_template_kwargs',
  'ignore_eos',
  'min_tokens',
  'guided_json',
  'vllm_xargs',
  'logit_bias',
  'input_ids',
  'n_predict',
  'grammar',
  'web_search',
  'web_search_replay',
];

t.test(
  'no flavor passes a field that changes the template or the length of generation, nor a gateway-side one',
  async (t) => {
    for (const flavor of UPSTREAM_FLAVORS) {
      const { passed } = upstreamFields(flavor, []);
      for (const field of NEVER_BY_DEFAULT) t.notOk(passed.has(field), `${flavor}: ${field}`);
      for (const field of [
        'messages',
        'max_tokens',
        'temperature',
        'top_p',
        'stop',
        'seed',
        'tools',
        'stream',
        'response_format',
      ])
        t.ok(passed.has(field), `${flavor}: ${field}`);
    }
  },
);

t.test('each flavor passes only what its server honours', async (t) => {
  t.ok(upstreamFields('vllm', []).passed.has('top_k'), 'vLLM has top_k');
  t.notOk(upstreamFields('openai', []).passed.has('top_k'), 'OpenAI has no top_k');
  t.notOk(upstreamFields('tgi', []).passed.has('parallel_tool_calls'), 'TGI has no parallel_tool_calls');
  t.notOk(upstreamFields('ollama', []).passed.has('tool_choice'), "Ollama's OpenAI layer ignores tool_choice");
});

t.test('each flavor reports a running usage its own way, or none', async (t) => {
  t.equal(upstreamFields('vllm', []).runningUsage, 'continuous_usage_stats');
  t.equal(upstreamFields('sglang', []).runningUsage, 'continuous_usage_stats');
  t.equal(upstreamFields('llama-server', []).runningUsage, 'timings_per_token');
  for (const flavor of ['tgi', 'ollama', 'openai'] as const) t.equal(upstreamFields(flavor, []).runningUsage, 'none');
});

t.test('only vLLM and SGLang say which stop string ended an answer', async (t) => {
  for (const flavor of UPSTREAM_FLAVORS)
    t.equal(upstreamFields(flavor, []).reportsStopSequence, flavor === 'vllm' || flavor === 'sglang', flavor);
});

t.test(
  'extra fields add to the flavor; they never make a gateway-side field, the model or stream_options a copied one',
  async (t) => {
    const { passed } = upstreamFields('vllm', [
      'min_p',
      'chat_template_kwargs',
      'web_search',
      'model',
      'stream_options',
    ]);
    t.ok(passed.has('min_p'));
    t.ok(passed.has('chat_template_kwargs'));
    for (const field of ['web_search', 'model', 'stream_options']) t.notOk(passed.has(field), field);
  },
);
