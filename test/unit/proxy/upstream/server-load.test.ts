// What an inference server's own metrics say of its load (proxy/upstream/server-load.ts).
import t from 'tap';
import { isFull, serverLoad } from '../../../../proxy/upstream/server-load.js';

t.test("vLLM V1: requests waiting summed over its series, the KV cache's use", async (t) => {
  const text = [
    '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
    '# TYPE vllm:num_requests_waiting gauge',
    'vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen3-8B"} 3.0',
    'vllm:num_requests_waiting{engine="1",model_name="Qwen/Qwen3-8B"} 2.0',
    'vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-8B"} 40.0',
    'vllm:kv_cache_usage_perc{engine="0",model_name="Qwen/Qwen3-8B"} 0.42',
  ].join('\n');
  t.same(serverLoad(text), { waiting: 5, kvCacheUsage: 0.42 });
});

t.test('vLLM V0 names the KV cache gpu_cache_usage_perc', async (t) => {
  t.same(serverLoad('vllm:num_requests_waiting 0\nvllm:gpu_cache_usage_perc 0.97\n'), {
    waiting: 0,
    kvCacheUsage: 0.97,
  });
});

t.test('llama-server (--metrics), SGLang and TGI', async (t) => {
  t.same(serverLoad('llamacpp:requests_deferred 1\nllamacpp:kv_cache_usage_ratio 0.5\n'), {
    waiting: 1,
    kvCacheUsage: 0.5,
  });
  t.same(serverLoad('sglang:num_queue_reqs{model_name="m"} 4\nsglang:token_usage{model_name="m"} 0.9\n'), {
    waiting: 4,
    kvCacheUsage: 0.9,
  });
  t.same(serverLoad('tgi_queue_size 2\n'), { waiting: 2, kvCacheUsage: undefined });
});

t.test('metrics that name none of the series are no load figure; nonsense values are skipped', async (t) => {
  t.equal(serverLoad('process_cpu_seconds_total 12\n'), undefined);
  t.equal(serverLoad(''), undefined);
  t.same(serverLoad('vllm:num_requests_waiting NaN\nvllm:num_requests_waiting -1\nvllm:kv_cache_usage_perc 7\n'), {
    waiting: 0,
    kvCacheUsage: 1,
  });
});

t.test('full: requests waiting, or the KV cache at the threshold; unknown load is never full', async (t) => {
  t.equal(isFull({ waiting: 1, kvCacheUsage: 0.1 }, 0.95), true);
  t.equal(isFull({ waiting: 0, kvCacheUsage: 0.95 }, 0.95), true);
  t.equal(isFull({ waiting: 0, kvCacheUsage: 0.94 }, 0.95), false);
  t.equal(isFull({ waiting: 0, kvCacheUsage: undefined }, 0.95), false);
  t.equal(isFull(undefined, 0.95), false);
});
