import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { startSim } from '../../../sim/server.js';
import { qwen3 } from '../../../sim/qwen3-prompt.js';
import type { TokenCounter } from '../../../tokenizer/counter.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';
import { writeHugeBody, type Written } from '../../helpers/huge-body.js';
import { REQUESTS, SERVED_MODEL, simPromptTokens, tokenizerConfig, rejection } from './sample-requests.js';

const upstream = tokenizerConfig({ source: 'upstream' });

interface Fake {
  url: string;
  requests: Array<{ path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }>;
}

/** A server on a free loopback port whose answers come from `handle`; closed after the test. */
async function fakeServer(
  t: Test,
  handle: (path: string, body: Record<string, unknown>, res: ServerResponse) => void,
): Promise<Fake> {
  const requests: Fake['requests'] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      handle(req.url ?? '', body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function counterFor(t: Test, url: string, over: Partial<typeof upstream.upstream> = {}): Promise<TokenCounter> {
  const counter = await createTokenCounter(
    { ...upstream, upstream: { ...upstream.upstream, ...over } },
    {
      upstreamUrls: [`${url}/v1`],
      servedModel: SERVED_MODEL,
    },
  );
  t.teardown(() => counter.close());
  return counter;
}

t.test("the upstream count (vLLM /tokenize) equals the sim's prompt_tokens, for every kind of request", async (t) => {
  const sim = await startSim({});
  t.teardown(() => sim.close());
  const counter = await counterFor(t, sim.url);
  t.equal(counter.source, 'upstream');
  t.equal(counter.exact, true);
  for (const [name, request] of Object.entries(REQUESTS)) {
    t.equal(await counter.count(request), await simPromptTokens(sim, request), name);
  }
});

t.test(
  'vLLM /tokenize gets the served model name, the template fields and the upstream key as a Bearer token',
  async (t) => {
    const sim = await startSim({ apiKey: 'sk-upstream' });
    t.teardown(() => sim.close());
    const counter = await createTokenCounter(upstream, {
      upstreamUrls: [`${sim.url}/v1`],
      upstreamApiKey: 'sk-upstream',
      servedModel: SERVED_MODEL,
    });
    t.teardown(() => counter.close());
    await counter.count({
      ...REQUESTS.tools!,
      max_tokens: 5,
      temperature: 0.2,
      extra_fields: { chat_template_kwargs: { enable_thinking: false } },
    });
    const seen = sim.requests().find((r) => r.path === '/tokenize');
    t.equal(seen?.headers.authorization, 'Bearer sk-upstream');
    t.same(Object.keys(seen?.body as object).sort(), [
      'add_generation_prompt',
      'chat_template_kwargs',
      'messages',
      'model',
      'tools',
    ]);
    t.match(seen?.body, {
      model: SERVED_MODEL,
      add_generation_prompt: true,
      chat_template_kwargs: { enable_thinking: false },
    });
  },
);

t.test(
  'llama-server flavour: /apply-template renders, then /tokenize counts the prompt with add_special',
  async (t) => {
    // A stand-in for llama-server's two endpoints, rendering and encoding with the Qwen3 files.
    const fake = await fakeServer(t, (path, body, res) => {
      if (path === '/apply-template') {
        const messages = body.messages as Parameters<ReturnType<typeof qwen3>['prompt']>[0]['messages'];
        json(res, 200, {
          prompt: qwen3().prompt({
            messages,
            tools: body.tools as never,
            addGenerationPrompt: body.add_generation_prompt !== false,
          }),
        });
      } else if (path === '/tokenize') {
        json(res, 200, { tokens: qwen3().encode(body.content as string) });
      } else json(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } });
    });
    const sim = await startSim({});
    t.teardown(() => sim.close());
    const counter = await counterFor(t, fake.url, { flavor: 'llama-server' });
    for (const name of ['tools', 'tool calls and results', 'multilingual']) {
      t.equal(await counter.count(REQUESTS[name]!), await simPromptTokens(sim, REQUESTS[name]!), name);
    }
    t.same(
      fake.requests.slice(0, 2).map((r) => r.path),
      ['/apply-template', '/tokenize'],
    );
    t.match(fake.requests[1]?.body, { add_special: true, parse_special: true });
    t.notOk('model' in (fake.requests[0]?.body ?? {}), 'llama-server serves one model: no model field');
  },
);

t.test("tokenizer.upstream.url replaces the first upstream's origin, path prefix kept", async (t) => {
  const fake = await fakeServer(t, (_path, _body, res) => json(res, 200, { count: 7, tokens: [] }));
  const counter = await createTokenCounter(
    { ...upstream, upstream: { ...upstream.upstream, url: `${fake.url}/vllm/` } },
    {
      upstreamUrls: ['http://127.0.0.1:1/v1'],
      servedModel: SERVED_MODEL,
    },
  );
  t.teardown(() => counter.close());
  t.equal(await counter.count(REQUESTS['one user message']!), 7);
  t.equal(fake.requests[0]?.path, '/vllm/tokenize');
});

t.test('a failing upstream tokenize is a clear GatewayError', async (t) => {
  const fake = await fakeServer(t, (_path, body, res) => {
    const mode = (body.messages as Array<{ content: string }>)[0]?.content;
    if (mode === '500') json(res, 500, { error: { message: 'engine dead' } });
    else if (mode === '404') json(res, 404, { detail: 'Not Found' });
    else if (mode === '400')
      json(res, 400, {
        error: { message: `The model \`${SERVED_MODEL}\` cannot render this`, type: 'BadRequestError', code: 400 },
      });
    else if (mode === '503') json(res, 503, { error: { message: 'busy' } });
    else if (mode === 'not json') res.writeHead(200).end('<html>');
    else if (mode === 'no count') json(res, 200, { tokens: [] });
    else if (mode === 'silent') return; // never answers
  });
  const counter = await counterFor(t, fake.url, { timeout_ms: 300 });
  const ask = (content: string) =>
    rejection(counter.count({ model: 'qwen3-8b', messages: [{ role: 'user', content }] }));

  const failed = await ask('500');
  t.equal(failed.code, 'GW_ERR_UPSTREAM_FAILED');
  t.equal(failed.status, 502);
  t.match(failed.message, /\/tokenize answered 500/);
  const missing = await ask('404');
  t.equal(missing.code, 'GW_ERR_UPSTREAM_FAILED');
  t.match(missing.message, /answered 404 .*tokenizer\.upstream\.flavor/);
  const rejected = await ask('400');
  t.equal(rejected.code, 'GW_ERR_UPSTREAM_REJECTED');
  t.equal(
    rejected.message,
    'The model server rejected the request.',
    "the gateway's words, never the upstream's (which named its model)",
  );
  t.equal((await ask('503')).code, 'GW_ERR_UPSTREAM_OVERLOADED');
  t.equal((await ask('not json')).code, 'GW_ERR_UPSTREAM_BAD_RESPONSE');
  t.equal((await ask('no count')).code, 'GW_ERR_UPSTREAM_BAD_RESPONSE');
  t.equal((await ask('silent')).code, 'GW_ERR_UPSTREAM_TIMEOUT');
});

t.test(
  'regression: a tokenize answer or error past its limit is refused without being read whole (issue #13)',
  async (t) => {
    const MB = 1024 * 1024;
    let written!: Promise<Written>;
    const fake = await fakeServer(t, (_path, body, res) => {
      const status = (body.messages as Array<{ content: string }>)[0]?.content === 'error' ? 500 : 200;
      written = writeHugeBody(res, status, 50 * MB);
    });
    const counter = await createTokenCounter(upstream, {
      upstreamUrls: [`${fake.url}/v1`],
      servedModel: SERVED_MODEL,
      maxBodyBytes: MB,
    });
    t.teardown(() => counter.close());
    const ask = (content: string) =>
      rejection(counter.count({ model: 'qwen3-8b', messages: [{ role: 'user', content }] }));

    const tooLarge = await ask('a count');
    t.equal(tooLarge.code, 'GW_ERR_UPSTREAM_BAD_RESPONSE');
    t.match(tooLarge.message, /\/tokenize exceeds 1048576 bytes/);
    t.notOk((await written).whole, 'a 50 MB answer: not read to its end');
    const failed = await ask('error');
    t.equal(failed.code, 'GW_ERR_UPSTREAM_FAILED');
    t.notOk((await written).whole, 'a 50 MB error: not read to its end');
  },
);

t.test('an unreachable upstream tokenize is GW_ERR_UPSTREAM_UNREACHABLE', async (t) => {
  const closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const counter = await counterFor(t, `http://127.0.0.1:${closedPort}`);
  t.equal((await rejection(counter.count(REQUESTS['one user message']!))).code, 'GW_ERR_UPSTREAM_UNREACHABLE');
});

t.test("an aborted upstream count rejects with the signal's reason", async (t) => {
  const controller = new AbortController();
  // The client goes away once the upstream has the request (which it never answers).
  const fake = await fakeServer(t, () => controller.abort(new Error('client went away')));
  const counter = await counterFor(t, fake.url);
  await t.rejects(counter.count(REQUESTS['one user message']!, controller.signal), /client went away/);
});

t.test('source upstream without any upstream URL fails when the counter is created', async (t) => {
  await t.rejects(
    createTokenCounter(upstream, { upstreamUrls: [], servedModel: SERVED_MODEL }),
    /needs an upstream URL/,
  );
});
