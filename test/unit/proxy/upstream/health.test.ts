// /ready's view of the upstream (server.ready_checks_upstream; proxy/upstream/upstream-health.ts): the
// flavor's health endpoint on every replica, ready when one answers 200; as a /ready check, cached.
import t from 'tap';
import { upstreamCheck } from '../../../../bin/readiness-checks.js';
import { Readiness } from '../../../../proxy/node/readiness.js';
import { anyReplicaHealthy, healthUrl } from '../../../../proxy/upstream/upstream-health.js';
import { TestClock } from '../../../helpers/clock.js';
import { startInferenceServer } from '../../../fakes/inference-servers.js';

const PROBE = { apiKey: undefined, timeoutMs: 1000 };
const DOWN = 'http://127.0.0.1:9/v1';

t.test("each flavor's health endpoint", async (t) => {
  const base = 'http://10.0.0.1:8000/v1';
  t.equal(healthUrl(base, 'vllm'), 'http://10.0.0.1:8000/health');
  t.equal(healthUrl(base, 'llama-server'), 'http://10.0.0.1:8000/health');
  t.equal(healthUrl(base, 'sglang'), 'http://10.0.0.1:8000/health');
  t.equal(healthUrl(base, 'tgi'), 'http://10.0.0.1:8000/health');
  t.equal(healthUrl('http://10.0.0.1:11434/v1', 'ollama'), 'http://10.0.0.1:11434/api/version');
  t.equal(healthUrl('https://api.example.com/openai/v1/', 'openai'), 'https://api.example.com/openai/v1/models');
});

t.test('healthy when one replica answers 200, though another is down', async (t) => {
  const fake = await startInferenceServer('vllm');
  t.teardown(() => fake.close());
  await t.resolves(anyReplicaHealthy([DOWN, fake.baseUrl], 'vllm', PROBE));
  t.same(
    fake.requests.map((request) => request.path),
    ['/health'],
  );
});

t.test('unhealthy when no replica answers, or each answers otherwise than 200', async (t) => {
  const fake = await startInferenceServer('llama-server');
  t.teardown(() => fake.close());
  await t.rejects(anyReplicaHealthy([DOWN], 'llama-server', PROBE));
  fake.loading = true;
  await t.rejects(anyReplicaHealthy([fake.baseUrl], 'llama-server', PROBE), 'llama-server loading its model: 503');
  fake.loading = false;
  await t.resolves(anyReplicaHealthy([fake.baseUrl], 'llama-server', PROBE));
});

t.test('Ollama is asked GET /api/version, a generic OpenAI server its model list', async (t) => {
  const ollama = await startInferenceServer('ollama');
  const openai = await startInferenceServer('openai');
  t.teardown(() => Promise.all([ollama.close(), openai.close()]));
  await t.resolves(anyReplicaHealthy([ollama.baseUrl], 'ollama', PROBE));
  await t.resolves(anyReplicaHealthy([openai.baseUrl], 'openai', PROBE));
  t.same(
    [...ollama.requests, ...openai.requests].map((request) => request.path),
    ['/api/version', '/v1/models'],
  );
});

t.test(
  'regression: /ready was 200 with the upstream dead; with the check on it is 503 naming upstream, and polling within a second asks the upstream once',
  async (t) => {
    const fake = await startInferenceServer('llama-server');
    t.teardown(() => fake.close());
    const clock = new TestClock();
    const readiness = new Readiness([upstreamCheck(() => anyReplicaHealthy([fake.baseUrl], 'llama-server', PROBE))], {
      cacheMs: 1000,
      timeoutMs: 2000,
      draining: () => false,
      now: clock.now,
    });
    t.same((await readiness.answer()).body, { status: 'ready', checks: { upstream: 'ok', draining: false } });
    fake.failing = 500;
    t.equal((await readiness.answer()).ready, true, 'the cached answer, within the second');
    t.equal(fake.requests.length, 1);
    clock.advance(1000);
    t.same(await readiness.answer(), {
      ready: false,
      body: { status: 'unready', checks: { upstream: 'unreachable', draining: false } },
    });
    t.equal(fake.requests.length, 2);
  },
);
