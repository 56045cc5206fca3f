// The model's context as the upstream reports it, per server flavor (read at start when the config does
// not set it), and what one request may have of it where llama-server's slots share their KV cache.
import { createServer } from 'node:http';
import t from 'tap';
import { closeServer, listen, urlOf } from '../../../../http/listen.js';
import { reportedContext } from '../../../../proxy/upstream/model-context.js';
import type { UpstreamFlavor } from '../../../../proxy/upstream/request-fields.js';
import { sharedContext, slotCount } from '../../../../proxy/upstream/slot-context.js';
import { readUpstreamReport, type UpstreamReport } from '../../../../proxy/upstream/upstream-report.js';
import { startInferenceServer, type ServerKind } from '../../../fakes/inference-servers.js';

const MODEL = 'Qwen/Qwen3-8B';

async function reportOf(kind: ServerKind, context: number, slots?: number): Promise<UpstreamReport> {
  const fake = await startInferenceServer(kind, { context, ...(slots !== undefined ? { slots } : {}) });
  try {
    return await readUpstreamReport({ baseUrl: fake.baseUrl, apiKey: undefined, timeoutMs: 2000 });
  } finally {
    await fake.close();
  }
}

const ask = (report: UpstreamReport, flavor: UpstreamFlavor) => reportedContext(report, flavor, MODEL);

t.test('vLLM and SGLang report max_model_len of the served model in /v1/models', async (t) => {
  t.same(ask(await reportOf('vllm', 40960), 'vllm'), { tokens: 40960, source: 'GET /v1/models (max_model_len)' });
  t.same(ask(await reportOf('sglang', 40960), 'sglang'), { tokens: 40960, source: 'GET /v1/models (max_model_len)' });
  const listed = {
    models: {
      data: [
        { id: 'other', max_model_len: 1024 },
        { id: MODEL, max_model_len: 8192 },
      ],
    },
  };
  t.equal(ask(listed, 'vllm')?.tokens, 8192, 'the served model, not the first listed');
});

t.test('llama-server reports n_ctx in /props, TGI max_total_tokens in /info', async (t) => {
  t.same(ask(await reportOf('llama-server', 8192), 'llama-server'), { tokens: 8192, source: 'GET /props (n_ctx)' });
  t.same(ask(await reportOf('tgi', 4096), 'tgi'), { tokens: 4096, source: 'GET /info (max_total_tokens)' });
});

t.test(
  'regression: llama-server configured as vllm or openai fell back to 32768; the probe now reads /props when the flavor says nothing',
  async (t) => {
    const report = await reportOf('llama-server', 4096);
    t.same(ask(report, 'vllm'), { tokens: 4096, source: 'GET /props (n_ctx)' });
    t.same(ask(report, 'openai'), { tokens: 4096, source: 'GET /props (n_ctx)' });
  },
);

t.test('a missing, absurd or unreachable report is no report', async (t) => {
  t.equal(ask({ models: { data: [{ id: MODEL, max_model_len: 1e30 }] } }, 'vllm'), undefined, '1e30 is not a context');
  t.equal(ask({ info: { max_total_tokens: -5 } }, 'tgi'), undefined, 'neither is -5');
  t.equal(
    ask({ props: { default_generation_settings: { n_ctx: '4096' } } }, 'llama-server'),
    undefined,
    'nor a string',
  );
  t.equal(ask(await reportOf('ollama', 4096), 'ollama'), undefined, 'Ollama does not say');
  t.equal(ask({}, 'vllm'), undefined, 'nobody listening');
});

t.test('a report larger than 1 MB is no report', async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [{ id: MODEL, max_model_len: 40960 }], padding: 'x'.repeat(2 * 1024 * 1024) }));
  });
  await listen(server, 0, '127.0.0.1');
  t.teardown(() => closeServer(server));
  const report = await readUpstreamReport({ baseUrl: `${urlOf(server)}/v1`, apiKey: undefined, timeoutMs: 2000 });
  t.same(report, {});
});

t.test('llama-server with a shared KV cache: one request gets n_ctx / total_slots', async (t) => {
  const report = await reportOf('llama-server', 4096, 4);
  t.equal(slotCount(report), 4);
  t.same(sharedContext(report, 4096), { slots: 4, poolTokens: 4096, perRequest: 1024 });
});

t.test('one slot, or no slot count, shares nothing', async (t) => {
  t.equal(sharedContext(await reportOf('llama-server', 4096, 1), 4096), undefined);
  t.equal(sharedContext(await reportOf('vllm', 4096), 4096), undefined);
});

t.test('a slot count that is not a sane whole number is no slot count', async (t) => {
  for (const total_slots of [0, -4, 2.5, '4', 1e9, null])
    t.equal(slotCount({ props: { total_slots } }), undefined, String(total_slots));
});
