// The model's context window, as the upstream reports it (upstream-report.ts, read once at start when the
// config does not set `model.max_context_tokens`): vLLM and SGLang list it in GET /v1/models
// (`max_model_len` of the served model), llama-server in GET /props (`default_generation_settings.n_ctx`),
// TGI in GET /info (`max_total_tokens`). The flavor's own endpoint is read first, then the others: a
// server configured under the wrong flavor (llama-server as `vllm` or `openai`) still gives its context.
// Ollama and generic OpenAI servers do not say; nor does an upstream that is down at start. Then the
// gateway uses its default and logs that it did.
import type { UpstreamFlavor } from './request-fields.js';
import { servedCard } from './flavor-detect.js';
import { isRecord, type UpstreamReport } from './upstream-report.js';

/** Qwen3-8B's native context, the embedded model's: the ceiling when nobody says otherwise. */
export const DEFAULT_CONTEXT_TOKENS = 32768;

export interface ReportedContext {
  tokens: number;
  /** Where it was read, for the log. */
  source: 'GET /v1/models (max_model_len)' | 'GET /props (n_ctx)' | 'GET /info (max_total_tokens)';
}

type Reader = (report: UpstreamReport, servedModel: string) => ReportedContext | undefined;

const fromModels: Reader = (report, servedModel) =>
  withSource(servedCard(report, servedModel)?.max_model_len, 'GET /v1/models (max_model_len)');
const fromProps: Reader = (report) => {
  const settings = isRecord(report.props) ? report.props.default_generation_settings : undefined;
  return withSource(isRecord(settings) ? settings.n_ctx : undefined, 'GET /props (n_ctx)');
};
const fromInfo: Reader = (report) =>
  withSource(isRecord(report.info) ? report.info.max_total_tokens : undefined, 'GET /info (max_total_tokens)');

/** Each flavor's own endpoint; Ollama and OpenAI have none. */
const OWN: Readonly<Record<UpstreamFlavor, Reader | undefined>> = {
  vllm: fromModels,
  sglang: fromModels,
  'llama-server': fromProps,
  tgi: fromInfo,
  ollama: undefined,
  openai: undefined,
};

export function reportedContext(
  report: UpstreamReport,
  flavor: UpstreamFlavor,
  servedModel: string,
): ReportedContext | undefined {
  const own = OWN[flavor];
  const readers = own === undefined ? [fromProps, fromModels, fromInfo] : [own, fromProps, fromModels, fromInfo];
  for (const read of readers) {
    const found = read(report, servedModel);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A context size as reported: a whole number in the range the config itself allows, or nothing. */
function withSource(value: unknown, source: ReportedContext['source']): ReportedContext | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 16 && value <= 16_777_216
    ? { tokens: value, source }
    : undefined;
}
