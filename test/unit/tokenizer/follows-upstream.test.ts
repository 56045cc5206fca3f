// `tokenizer.upstream.flavor` follows the upstream's flavor when the config leaves it unset: llama-server's
// endpoints (POST /apply-template, then /tokenize) in front of llama-server, vLLM's POST /tokenize elsewhere.
import t from 'tap';
import { loadConfig } from '../../../config/load.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';
import { startInferenceServer } from '../../fakes/inference-servers.js';
import { SERVED_MODEL } from './sample-requests.js';

const hello = { model: 'm', messages: [{ role: 'user' as const, content: 'Hello there' }] };

t.test('the embedded defaults leave tokenizer.upstream.flavor unset: it follows the upstream', async (t) => {
  t.equal(loadConfig(undefined, {}).config.tokenizer.upstream.flavor, undefined);
});

t.test(
  'regression: tokenizer.source upstream in front of llama-server answered 502 on every count (vLLM\'s /tokenize got {"tokens": []})',
  async (t) => {
    const llama = await startInferenceServer('llama-server');
    t.teardown(() => llama.close());
    const { tokenizer } = loadConfig(undefined, {}).config;
    const counter = await createTokenCounter(
      { ...tokenizer, source: 'upstream' },
      { upstreamUrls: [llama.baseUrl], servedModel: SERVED_MODEL, upstreamFlavor: 'llama-server' },
    );
    t.teardown(() => counter.close());
    // `<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n`: 4 words, one token each in the fake.
    t.equal(await counter.count(hello), 4);
    t.same(
      llama.requests.map((request) => `${request.method} ${request.path}`),
      ['POST /apply-template', 'POST /tokenize'],
    );
  },
);

t.test("a flavor the operator sets is used whatever the upstream's", async (t) => {
  const llama = await startInferenceServer('llama-server');
  t.teardown(() => llama.close());
  const { tokenizer } = loadConfig(undefined, {}).config;
  const counter = await createTokenCounter(
    { ...tokenizer, source: 'upstream', upstream: { ...tokenizer.upstream, flavor: 'vllm' } },
    { upstreamUrls: [llama.baseUrl], servedModel: SERVED_MODEL, upstreamFlavor: 'llama-server' },
  );
  t.teardown(() => counter.close());
  await t.rejects(
    counter.count(hello),
    { code: 'GW_ERR_UPSTREAM_BAD_RESPONSE', message: /\/tokenize has no `count`/ },
    "vLLM's /tokenize, as configured: the 502 the default used to give",
  );
  t.same(
    llama.requests.map((request) => `${request.method} ${request.path}`),
    ['POST /tokenize'],
  );
});
