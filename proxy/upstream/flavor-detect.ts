// Which kind of server the upstream is, from what it answered at start (upstream-report.ts). Each
// server has an endpoint of its own, checked by the fields only that server puts there: llama-server's
// GET /props (`default_generation_settings`), SGLang's GET /model_info (`model_path`, `is_generation`),
// TGI's GET /info (`model_id`, `max_total_tokens`), Ollama's GET /api/version, vLLM's GET /version.
// Failing those, the `owned_by` of the served model in GET /v1/models (`vllm`, `sglang`, `llamacpp`).
// A server that shows none of these is not recognised: undefined (the config's flavor, else vllm).
import type { UpstreamFlavor } from './request-fields.js';
import { isRecord, type UpstreamReport } from './upstream-report.js';

export interface DetectedFlavor {
  flavor: UpstreamFlavor;
  /** What showed it, for the log: e.g. `GET /props`. */
  evidence: string;
}

const OWNERS: Readonly<Record<string, UpstreamFlavor>> = { vllm: 'vllm', sglang: 'sglang', llamacpp: 'llama-server' };

export function detectedFlavor(report: UpstreamReport, servedModel: string): DetectedFlavor | undefined {
  const { props, modelInfo, info, ollamaVersion, version } = report;
  if (isRecord(props) && isRecord(props.default_generation_settings))
    return { flavor: 'llama-server', evidence: 'GET /props' };
  if (isRecord(modelInfo) && typeof modelInfo.model_path === 'string' && typeof modelInfo.is_generation === 'boolean')
    return { flavor: 'sglang', evidence: 'GET /model_info' };
  if (isRecord(info) && typeof info.model_id === 'string' && typeof info.max_total_tokens === 'number')
    return { flavor: 'tgi', evidence: 'GET /info' };
  if (isRecord(ollamaVersion) && typeof ollamaVersion.version === 'string')
    return { flavor: 'ollama', evidence: 'GET /api/version' };
  if (isRecord(version) && typeof version.version === 'string') return { flavor: 'vllm', evidence: 'GET /version' };
  const owner = servedCard(report, servedModel)?.owned_by;
  const owned = typeof owner === 'string' && Object.hasOwn(OWNERS, owner) ? OWNERS[owner] : undefined;
  return owned === undefined ? undefined : { flavor: owned, evidence: `GET /v1/models (owned_by ${String(owner)})` };
}

/** The served model's card in GET /v1/models, else the first (a single-model server names it its own way). */
export function servedCard(report: UpstreamReport, servedModel: string): Record<string, unknown> | undefined {
  const list = report.models;
  const cards = isRecord(list) && Array.isArray(list.data) ? list.data.filter(isRecord) : [];
  return cards.find((card) => card.id === servedModel) ?? cards[0];
}
