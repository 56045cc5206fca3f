// The model's context as the upstream reports it, per server flavor (asked at start when the config does not set it).
import { createServer, type Server } from 'node:http';
import t from 'tap';
import { listen, closeServer, urlOf } from '../../proxy/listen.js';
import { reportedContextTokens } from '../../proxy/upstream/model-context.js';
import type { UpstreamFlavor } from '../../proxy/upstream/request-fields.js';

/** A server that answers each path with the JSON given for it, and 404 elsewhere. */
async function serving(bodies: Record<string, unknown>): Promise<Server> {
  const server = createServer((req, res) => {
    const body = bodies[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await listen(server, 0, '127.0.0.1');
  return server;
}

const ask = (server: Server, flavor: UpstreamFlavor): Promise<number | undefined> =>
  reportedContextTokens({
    baseUrl: `${urlOf(server)}/v1`,
    flavor,
    servedModel: 'Qwen/Qwen3-8B',
    apiKey: undefined,
    timeoutMs: 2000,
  });

t.test('vLLM and SGLang report max_model_len of the served model in /v1/models', async (t) => {
  const server = await serving({
    '/v1/models': {
      data: [
        { id: 'other', max_model_len: 1024 },
        { id: 'Qwen/Qwen3-8B', max_model_len: 40960 },
      ],
    },
  });
  t.teardown(() => closeServer(server));
  t.equal(await ask(server, 'vllm'), 40960);
  t.equal(await ask(server, 'sglang'), 40960);
});

t.test('llama-server reports n_ctx in /props, TGI max_total_tokens in /info', async (t) => {
  const server = await serving({
    '/props': { default_generation_settings: { n_ctx: 8192 } },
    '/info': { max_total_tokens: 4096 },
  });
  t.teardown(() => closeServer(server));
  t.equal(await ask(server, 'llama-server'), 8192);
  t.equal(await ask(server, 'tgi'), 4096);
});

t.test('a missing, absurd or unreachable report is no report', async (t) => {
  const server = await serving({
    '/v1/models': { data: [{ id: 'Qwen/Qwen3-8B', max_model_len: 1e30 }] },
    '/info': { max_total_tokens: -5 },
  });
  t.teardown(() => closeServer(server));
  t.equal(await ask(server, 'vllm'), undefined, '1e30 is not a context');
  t.equal(await ask(server, 'tgi'), undefined, 'neither is -5');
  t.equal(await ask(server, 'llama-server'), undefined, 'no /props');
  t.equal(await ask(server, 'ollama'), undefined, 'Ollama does not say');
  t.equal(
    await reportedContextTokens({
      baseUrl: 'http://127.0.0.1:9/v1',
      flavor: 'vllm',
      servedModel: 'x',
      apiKey: undefined,
      timeoutMs: 2000,
    }),
    undefined,
    'nobody listening',
  );
});

t.test('a report larger than 1 MB is no report', async (t) => {
  const server = await serving({
    '/v1/models': {
      data: [{ id: 'Qwen/Qwen3-8B', max_model_len: 40960 }],
      padding: 'x'.repeat(2 * 1024 * 1024),
    },
  });
  t.teardown(() => closeServer(server));
  t.equal(await ask(server, 'vllm'), undefined);
});
