// What an inference server's own Prometheus metrics say of its load (`upstream.load_from_metrics`, read with the
// health checks): the requests its scheduler holds waiting, and how full its KV cache is. A replica with requests
// waiting, or its KV cache past `upstream.kv_cache_full`, is full: the routing passes it by while another has room
// (docs/upstreams.md). The names, per server:
// - vLLM: `vllm:num_requests_waiting`; `vllm:kv_cache_usage_perc` (V1) or `vllm:gpu_cache_usage_perc` (V0), a
//   fraction from 0 to 1 despite the name.
// - llama-server (`--metrics`): `llamacpp:requests_deferred`; `llamacpp:kv_cache_usage_ratio`.
// - SGLang: `sglang:num_queue_reqs`; `sglang:token_usage`.
// - TGI: `tgi_queue_size` (no KV cache figure).

export interface ServerLoad {
  /** Requests the server holds waiting for room (summed over its series). */
  waiting: number;
  /** The fraction of its KV cache in use, 0 to 1 (the highest of its series); undefined when not reported. */
  kvCacheUsage: number | undefined;
}

const WAITING = new Set([
  'vllm:num_requests_waiting',
  'llamacpp:requests_deferred',
  'sglang:num_queue_reqs',
  'tgi_queue_size',
]);
const KV_CACHE_USAGE = new Set([
  'vllm:kv_cache_usage_perc',
  'vllm:gpu_cache_usage_perc',
  'llamacpp:kv_cache_usage_ratio',
  'sglang:token_usage',
]);

/** A sample line of the text format: a name, optional labels, a value (an optional timestamp after it). */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})?\s+(\S+)/;

/** The load in a server's metrics text; undefined when it names none of the series above. */
export function serverLoad(metricsText: string): ServerLoad | undefined {
  let waiting: number | undefined;
  let kvCacheUsage: number | undefined;
  for (const line of metricsText.split('\n')) {
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (sample === null) continue;
    const name = sample[1]!;
    const value = Number(sample[2]);
    if (!Number.isFinite(value) || value < 0) continue;
    if (WAITING.has(name)) waiting = (waiting ?? 0) + value;
    else if (KV_CACHE_USAGE.has(name)) kvCacheUsage = Math.max(kvCacheUsage ?? 0, Math.min(value, 1));
  }
  if (waiting === undefined && kvCacheUsage === undefined) return undefined;
  return { waiting: waiting ?? 0, kvCacheUsage };
}

/** Whether a server's load leaves no room for one more request now. */
export function isFull(load: ServerLoad | undefined, kvCacheFull: number): boolean {
  if (load === undefined) return false;
  return load.waiting > 0 || (load.kvCacheUsage !== undefined && load.kvCacheUsage >= kvCacheFull);
}
