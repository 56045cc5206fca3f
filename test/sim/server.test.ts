import t from 'tap';
import { MODEL, complete, post, postJson, simFor } from './sim-client.js';

const hello = [{ role: 'user', content: 'Hello there' }];

t.test('GET /v1/models lists the served model in vLLM shape', async (t) => {
  const sim = await simFor(t, { maxModelLen: 4096 });
  const res = await fetch(`${sim.url}/v1/models`);
  const body = (await res.json()) as { object: string; data: Array<Record<string, unknown>> };
  t.equal(body.object, 'list');
  t.match(body.data, [
    { id: MODEL, object: 'model', owned_by: 'vllm', root: MODEL, parent: null, max_model_len: 4096 },
  ]);
  t.match(body.data[0]?.permission, [{ object: 'model_permission', allow_sampling: true }]);
});

t.test('GET /health answers 200 with an empty body', async (t) => {
  const sim = await simFor(t);
  const res = await fetch(`${sim.url}/health`);
  t.equal(res.status, 200);
  t.equal(await res.text(), '');
});

t.test('unknown routes are 404 and wrong methods 405', async (t) => {
  const sim = await simFor(t);
  t.equal((await fetch(`${sim.url}/v1/completions-nope`)).status, 404);
  t.equal((await fetch(`${sim.url}/v1/chat/completions`)).status, 405);
});

t.test('apiKey requires the bearer token on /v1 routes, like vllm serve --api-key', async (t) => {
  const sim = await simFor(t, { apiKey: 'sk-sim' });
  const denied = await postJson(sim, '/v1/chat/completions', { model: MODEL, messages: hello });
  t.equal(denied.status, 401);
  t.same(denied.body, { error: 'Unauthorized' });
  const wrong = await postJson(
    sim,
    '/v1/chat/completions',
    { model: MODEL, messages: hello },
    { authorization: 'Bearer nope' },
  );
  t.equal(wrong.status, 401);
  t.equal((await fetch(`${sim.url}/v1/models`)).status, 401);
  const ok = await complete(sim, { messages: hello }, { authorization: 'Bearer sk-sim' });
  t.equal(ok.object, 'chat.completion');
  t.equal((await fetch(`${sim.url}/health`)).status, 200, 'non-/v1 routes stay open');
  t.equal((await post(sim, '/tokenize', { prompt: 'x' })).status, 200);
});

t.test('requests() records method, path, headers and body of the last requests', async (t) => {
  const sim = await simFor(t);
  await complete(sim, { messages: hello }, { authorization: 'Bearer abc' });
  await fetch(`${sim.url}/health`);
  const [chat, health] = sim.requests();
  t.equal(chat?.method, 'POST');
  t.equal(chat?.path, '/v1/chat/completions');
  t.equal(chat?.headers.authorization, 'Bearer abc');
  t.match(chat?.body, { model: MODEL, messages: hello });
  t.equal(health?.path, '/health');
  for (let i = 0; i < 105; i++) await fetch(`${sim.url}/health`);
  t.equal(sim.requests().length, 100, 'only the last 100 are kept');
});

t.test('setRefusing(true) refuses connections and setRefusing(false) serves again on the same port', async (t) => {
  const sim = await simFor(t);
  t.equal((await fetch(`${sim.url}/health`)).status, 200);
  await sim.setRefusing(true);
  const err = await fetch(`${sim.url}/health`).then(
    () => undefined,
    (e: unknown) => e,
  );
  const code = err instanceof Error ? (err.cause as { code?: string } | undefined)?.code : undefined;
  t.equal(code, 'ECONNREFUSED');
  await sim.setRefusing(false);
  t.equal((await fetch(`${sim.url}/health`)).status, 200);
  t.equal(new URL(sim.url).port, String(sim.port));
});

t.test('a client that goes away is counted as aborted and generation stops', async (t) => {
  const sim = await simFor(t, { itlMs: 50, outputTokens: 200 });
  const controller = new AbortController();
  const res = await post(
    sim,
    '/v1/chat/completions',
    { model: MODEL, messages: hello, stream: true },
    {},
    controller.signal,
  );
  const reader = res.body?.getReader();
  await reader?.read();
  t.equal(sim.stats().inFlight, 1);
  controller.abort();
  t.match(await sim.until((stats) => stats.inFlight === 0), { requests: 1, completed: 0, aborted: 1, inFlight: 0 });
  const fromHttp = (await (await fetch(`${sim.url}/sim/stats`)).json()) as unknown;
  t.same(fromHttp, sim.stats(), 'GET /sim/stats serves the same');
});

t.test('a client that leaves during the TTFT is counted as aborted', async (t) => {
  const sim = await simFor(t, { ttftMs: 5000 });
  const controller = new AbortController();
  const pending = post(sim, '/v1/chat/completions', { model: MODEL, messages: hello }, {}, controller.signal).catch(
    () => undefined,
  );
  await sim.until((stats) => stats.inFlight === 1);
  controller.abort();
  await pending;
  t.match(await sim.until((stats) => stats.inFlight === 0), { completed: 0, aborted: 1 });
});

t.test('close() ends open streams', async (t) => {
  const sim = await simFor(t, { itlMs: 1000, outputTokens: 50 });
  const res = await post(sim, '/v1/chat/completions', { model: MODEL, messages: hello, stream: true });
  const reader = res.body?.getReader();
  await reader?.read();
  // The stream has 49 s to go: a close that waited for it would not have returned.
  await sim.close();
  t.match(
    await sim.until((stats) => stats.inFlight === 0),
    { completed: 0, aborted: 1 },
    'close cut the stream instead of waiting for it',
  );
  const ended = await reader
    ?.read()
    .then(
      async (r) => {
        // Drain whatever was buffered; the body then ends or breaks.
        for (let part = r; !part.done; part = await reader.read());
        return true;
      },
      () => true,
    )
    .catch(() => true);
  t.equal(ended, true, 'the stream ended');
});
