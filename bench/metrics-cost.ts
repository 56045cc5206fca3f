// Micro-benchmark of what the metrics record per request, in the same calls the gateway makes, with the
// metrics on (a GatewayMetrics) and off (undefined: every record is a `?.` that does nothing): a streamed
// chat request of 20 chunks, its request count, its GenAI observations, its upstream call, its charge.
// The load bench (`npm run bench`, gateway-full vs gateway-full-metrics) measures the same difference
// end to end, within its noise. `npm run bench:metrics`.
import { AnswerWatch } from '../proxy/stream/answer-watch.js';
import type { ResponseEvent } from '../core/canonical.js';
import { ReplicaMetrics } from '../proxy/upstream/replica-metrics.js';
import { GatewayMetrics } from '../telemetry/metrics.js';

const CHUNKS = 20;
const chunks: ResponseEvent[] = Array.from({ length: CHUNKS + 1 }, (_, index) => ({
  type: 'chunk',
  chunk: {
    id: 'chatcmpl-0123456789abcdef01234567',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'qwen3-8b',
    choices:
      index < CHUNKS
        ? [{ index: 0, delta: { content: ' word' }, finish_reason: index === CHUNKS - 1 ? 'length' : null }]
        : [],
    ...(index === CHUNKS ? { usage: { prompt_tokens: 11, completion_tokens: CHUNKS, total_tokens: 11 + CHUNKS } } : {}),
  },
}));

/** One request's recording, as proxy/exchange/request-end.ts, the sink, the pool and the meter make it. */
function request(metrics: GatewayMetrics | undefined, replica: ReplicaMetrics | undefined): number {
  const startedAt = performance.now();
  const answer = metrics === undefined ? undefined : new AnswerWatch();
  metrics?.openStreams.inc();
  const dispatchedAt = replica === undefined ? 0 : performance.now();
  replica?.answered(200, (performance.now() - dispatchedAt) / 1000);
  for (const event of chunks) answer?.see(event);
  metrics?.creditsCharged.inc(metrics.orgLabels('org_1'), 19);
  metrics?.openStreams.dec();
  if (metrics === undefined || answer === undefined) return 0;
  const endedAt = performance.now();
  metrics.request({
    route: '/v1/chat/completions',
    dialect: 'chat',
    wire: 'spec',
    stream: true,
    status: 200,
    org: 'org_1',
  });
  const firstTokenAt = answer.firstTokenAt ?? endedAt;
  metrics.generation({
    dialect: 'chat',
    model: 'qwen3-8b',
    error: undefined,
    durationSeconds: (endedAt - startedAt) / 1000,
    firstTokenSeconds: (firstTokenAt - startedAt) / 1000,
    perOutputTokenSeconds: (endedAt - firstTokenAt) / 1000 / (CHUNKS - 1),
    tokens: { input: 11, output: CHUNKS, cache_read: 0, cache_write: 0 },
  });
  return answer.finishReasons.size;
}

function usPerRequest(metrics: GatewayMetrics | undefined): number {
  const replica = metrics === undefined ? undefined : new ReplicaMetrics(metrics, 'http://127.0.0.1:8000/v1');
  let sink = 0;
  for (let i = 0; i < 50_000; i++) sink += request(metrics, replica);
  const requests = 500_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) sink += request(metrics, replica);
  const us = Number(process.hrtime.bigint() - started) / requests / 1000;
  if (sink < 0) throw new Error('unreachable: keeps the calls from being optimised away');
  return us;
}

const off = usPerRequest(undefined);
const on = usPerRequest(new GatewayMetrics({ perOrg: false }));
const perOrg = usPerRequest(new GatewayMetrics({ perOrg: true }));
console.log(`${off.toFixed(2).padStart(6)} us  metrics off (the default)`);
console.log(`${on.toFixed(2).padStart(6)} us  metrics on`);
console.log(`${perOrg.toFixed(2).padStart(6)} us  metrics on, per_org`);
console.log(
  `metrics cost ${(on - off).toFixed(2)} us a streamed request (${(perOrg - off).toFixed(2)} us with per_org)`,
);
