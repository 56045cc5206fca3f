// What the upstream says about itself, read once at start from the first upstream URL: each server
// kind's own endpoint answers only on that kind, so which ones answer tells the kind (flavor-detect.ts),
// and their contents give the model's context (model-context.ts) and llama-server's slots
// (slot-context.ts). All asked at once, each bounded by the timeout; a path that does not answer 200
// with JSON is absent. Nothing here is trusted yet: the readers check every field they take.
import { getJson, type ProbeTarget } from './upstream-get.js';

export interface UpstreamReport {
  /** llama-server: GET /props (`default_generation_settings.n_ctx`, `total_slots`). */
  props?: unknown;
  /** SGLang: GET /model_info (GET /get_model_info before 0.5): `model_path`, `is_generation`. */
  modelInfo?: unknown;
  /** TGI: GET /info (`model_id`, `max_total_tokens`, `version`). */
  info?: unknown;
  /** Ollama: GET /api/version (`{"version": …}`). */
  ollamaVersion?: unknown;
  /** vLLM: GET /version (`{"version": …}`). */
  version?: unknown;
  /** Every OpenAI-compatible server: GET {base}/models (vLLM and SGLang: `max_model_len`; `owned_by`). */
  models?: unknown;
}

export interface ReportQuery extends ProbeTarget {
  /** The first upstream base URL, e.g. http://127.0.0.1:8000/v1. */
  baseUrl: string;
}

export async function readUpstreamReport(query: ReportQuery): Promise<UpstreamReport> {
  const base = new URL(query.baseUrl);
  const origin = base.origin;
  const openaiBase = base.pathname.replace(/\/+$/, '') || '/v1';
  const get = (path: string): Promise<unknown> => getJson(`${origin}${path}`, query);
  const [props, modelInfo, info, ollamaVersion, version, models] = await Promise.all([
    get('/props'),
    // SGLang 0.5 renamed it and logs a deprecation on the old path: the old one only when the new one is missing.
    get('/model_info').then((found) => found ?? get('/get_model_info')),
    get('/info'),
    get('/api/version'),
    get('/version'),
    get(`${openaiBase}/models`),
  ]);
  const report: UpstreamReport = {};
  if (props !== undefined) report.props = props;
  if (modelInfo !== undefined) report.modelInfo = modelInfo;
  if (info !== undefined) report.info = info;
  if (ollamaVersion !== undefined) report.ollamaVersion = ollamaVersion;
  if (version !== undefined) report.version = version;
  if (models !== undefined) report.models = models;
  return report;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
