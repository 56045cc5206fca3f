// Which server the upstream is, from what it answers at start (proxy/upstream/flavor-detect.ts over
// upstream-report.ts), against a fake of each server that answers its own endpoints with its own shapes.
import t from 'tap';
import { detectedFlavor } from '../../../../proxy/upstream/flavor-detect.js';
import { readUpstreamReport } from '../../../../proxy/upstream/upstream-report.js';
import { startInferenceServer, type FakeServer, type ServerKind } from '../../../fakes/inference-servers.js';

const MODEL = 'Qwen/Qwen3-8B';

async function detect(fake: FakeServer, apiKey?: string) {
  const report = await readUpstreamReport({ baseUrl: fake.baseUrl, apiKey, timeoutMs: 2000 });
  return detectedFlavor(report, MODEL);
}

const EXPECTED: Array<[ServerKind, string, string]> = [
  ['llama-server', 'llama-server', 'GET /props'],
  ['vllm', 'vllm', 'GET /version'],
  ['sglang', 'sglang', 'GET /model_info'],
  ['sglang-0.4', 'sglang', 'GET /model_info'],
  ['tgi', 'tgi', 'GET /info'],
  ['ollama', 'ollama', 'GET /api/version'],
];

for (const [kind, flavor, evidence] of EXPECTED) {
  t.test(`a ${kind} server is detected as ${flavor} by ${evidence}`, async (t) => {
    const fake = await startInferenceServer(kind);
    t.teardown(() => fake.close());
    t.same(await detect(fake), { flavor, evidence });
  });
}

t.test('SGLang before 0.5 is asked GET /get_model_info only when /model_info is missing', async (t) => {
  const current = await startInferenceServer('sglang');
  const older = await startInferenceServer('sglang-0.4');
  t.teardown(() => Promise.all([current.close(), older.close()]));
  await detect(current);
  await detect(older);
  t.notOk(
    current.requests.some((request) => request.path === '/get_model_info'),
    'the deprecated path is not asked of a server that has the new one (it logs a warning per call)',
  );
  t.ok(older.requests.some((request) => request.path === '/get_model_info'));
});

t.test('a server that only lists its models is known by the owned_by of the served model', async (t) => {
  t.same(detectedFlavor({ models: { data: [{ id: MODEL, owned_by: 'vllm' }] } }, MODEL), {
    flavor: 'vllm',
    evidence: 'GET /v1/models (owned_by vllm)',
  });
  t.same(detectedFlavor({ models: { data: [{ id: MODEL, owned_by: 'llamacpp' }] } }, MODEL)?.flavor, 'llama-server');
});

t.test('a plain OpenAI-compatible server is not recognised: no flavor is claimed for it', async (t) => {
  const fake = await startInferenceServer('openai');
  t.teardown(() => fake.close());
  t.equal(await detect(fake), undefined);
});

t.test('an upstream down at start shows nothing', async (t) => {
  const report = await readUpstreamReport({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: undefined, timeoutMs: 2000 });
  t.same(report, {});
  t.equal(detectedFlavor(report, MODEL), undefined);
});

t.test('llama-server loading its model (503 everywhere) shows nothing yet', async (t) => {
  const fake = await startInferenceServer('llama-server');
  t.teardown(() => fake.close());
  fake.loading = true;
  t.equal(await detect(fake), undefined);
});

t.test("the probes carry the upstream's key as a Bearer token", async (t) => {
  const fake = await startInferenceServer('vllm');
  t.teardown(() => fake.close());
  await detect(fake, 'sk-upstream');
  t.ok(fake.requests.length >= 5);
  t.ok(fake.requests.every((request) => request.authorization === 'Bearer sk-upstream'));
});

t.test('nothing from the upstream is taken on its word: shapes that merely look alike are not a flavor', async (t) => {
  t.equal(detectedFlavor({ props: { default_generation_settings: 'yes' } }, MODEL), undefined);
  t.equal(detectedFlavor({ props: [] }, MODEL), undefined);
  t.equal(detectedFlavor({ version: { version: 11 } }, MODEL), undefined);
  t.equal(detectedFlavor({ info: { model_id: MODEL, max_total_tokens: '4096' } }, MODEL), undefined);
  t.equal(detectedFlavor({ modelInfo: { model_path: MODEL } }, MODEL), undefined);
  for (const owner of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
    t.equal(detectedFlavor({ models: { data: [{ id: MODEL, owned_by: owner }] } }, MODEL), undefined, owner);
});
