// The metrics listener: off unless `metrics.port` is set, then GET /metrics on its own port only;
// an organization label only with `metrics.per_org`; never a key; label sets bounded whatever the
// clients send.
import t, { type Test } from 'tap';
import { parseMetrics, samplesOf } from '../helpers/prometheus-text.js';
import { startStack, type Stack } from '../helpers/stack.js';

/** A gateway with auth and the meter, an organization with credits and a key, and metrics on its own port. */
async function meteredStack(
  t: Test,
  perOrg: boolean,
): Promise<{ stack: Stack; key: string; keyId: string; orgId: string }> {
  const stack = await startStack({
    yaml: `metrics:\n  per_org: ${perOrg}\nplugins:\n  - name: auth\n  - name: meter\n`,
    env: { GATEWAY_METRICS_PORT: '0' },
  });
  t.teardown(() => stack.close());
  const store = await stack.store();
  const org = await store.orgs.create('acme');
  await store.orgs.addCredits('acme', 100_000_000);
  const created = await store.keys.create(org.id, 'tests');
  return { stack, key: created.key, keyId: created.record.id, orgId: org.id };
}

/** One chat completion, read to its end. */
async function chat(t: Test, stack: Stack, key: string): Promise<void> {
  const response = await fetch(`${stack.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] }),
  });
  t.equal(response.status, 200);
  await response.text();
}

/** The metrics text once `requests` requests are counted (each is counted just after its last byte). */
async function metricsAfter(stack: Stack, requests: number): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const text = await (await fetch(`${stack.gateway.metricsUrl}/metrics`)).text();
    const counted = samplesOf(parseMetrics(text), 'gateway_requests_total').reduce((n, s) => n + s.value, 0);
    if (counted >= requests) return text;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`fewer than ${requests} requests counted`);
}

t.test('metrics are off by default: no listener, and the API has no /metrics', async (t) => {
  const stack = await startStack();
  t.teardown(() => stack.close());
  t.equal(stack.gateway.metricsUrl, undefined);
  t.equal((await fetch(`${stack.gateway.url}/metrics`)).status, 404);
});

t.test('with a metrics port, /metrics is served there and not on the API port', async (t) => {
  const stack = await startStack({ env: { GATEWAY_METRICS_PORT: '0' } });
  t.teardown(() => stack.close());
  const metricsUrl = stack.gateway.metricsUrl!;
  t.not(new URL(metricsUrl).port, new URL(stack.gateway.url).port, 'a port of its own');
  const response = await fetch(`${metricsUrl}/metrics`);
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  t.ok(samplesOf(parseMetrics(await response.text()), 'process_resident_memory_bytes').length > 0);
  t.equal((await fetch(`${stack.gateway.url}/metrics`)).status, 404, 'the API port has none');
});

t.test('the metrics listener answers 404 to any other path', async (t) => {
  const stack = await startStack({ env: { GATEWAY_METRICS_PORT: '0' } });
  t.teardown(() => stack.close());
  for (const path of ['/', '/metrics/', '/v1/chat/completions', '/health'])
    t.equal((await fetch(`${stack.gateway.metricsUrl}${path}`)).status, 404, path);
});

t.test('metrics.per_org: true labels the per-organization series with the organization id', async (t) => {
  const { stack, key, orgId } = await meteredStack(t, true);
  await chat(t, stack, key);
  const samples = parseMetrics(await metricsAfter(stack, 1));
  t.equal(samplesOf(samples, 'gateway_requests_total', { org: orgId, status: '200' }).length, 1);
  t.equal(samplesOf(samples, 'gateway_credits_charged_micros_total', { org: orgId }).length, 1);
});

t.test('metrics.per_org: false puts no organization label on any series', async (t) => {
  const { stack, key } = await meteredStack(t, false);
  await chat(t, stack, key);
  const samples = parseMetrics(await metricsAfter(stack, 1));
  t.equal(samplesOf(samples, 'gateway_requests_total', { status: '200' }).length, 1);
  t.same(
    samples.filter((sample) => 'org' in sample.labels),
    [],
  );
});

t.test('no API key or key id appears anywhere on /metrics', async (t) => {
  const { stack, key, keyId } = await meteredStack(t, true);
  await chat(t, stack, key);
  const refused = await fetch(`${stack.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}x` },
    body: '{}',
  });
  t.equal(refused.status, 401);
  const text = await metricsAfter(stack, 2);
  t.notOk(text.includes(key), 'not the key');
  t.notOk(text.includes(`${key}x`), 'not a refused key');
  t.notOk(text.includes(keyId), 'not the key id');
});

t.test('label sets stay bounded: requests to 50 unknown paths make one unmatched series', async (t) => {
  const stack = await startStack({ env: { GATEWAY_METRICS_PORT: '0' } });
  t.teardown(() => stack.close());
  const statuses = new Set<number>();
  for (let n = 0; n < 50; n++) {
    const response = await fetch(`${stack.gateway.url}/v1/unknown-${n}-${Math.random().toString(36).slice(2)}`);
    statuses.add(response.status);
    await response.text();
  }
  t.same([...statuses], [404]);
  const samples = parseMetrics(await metricsAfter(stack, 50));
  const series = samplesOf(samples, 'gateway_requests_total');
  t.equal(series.length, 1, 'one series');
  t.match(series[0], { labels: { route: 'unmatched', status: '404' }, value: 50 });
});
