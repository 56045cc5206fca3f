// The model's context window, as the upstream reports it. Asked once at start when the config does not
// set `model.max_context_tokens`: vLLM and SGLang list it in GET /v1/models (`max_model_len` of the
// served model), llama-server in GET /props (`default_generation_settings.n_ctx`), TGI in GET /info
// (`max_total_tokens`). Ollama and generic OpenAI servers do not say; nor does an upstream that is down
// at start. Then the gateway uses its default and logs that it did.
import { request } from 'undici';
import type { UpstreamFlavor } from './request-fields.js';
import { readCappedText } from '../capped-text.js';

/** Qwen3-8B's native context, the embedded model's: the ceiling when nobody says otherwise. */
export const DEFAULT_CONTEXT_TOKENS = 32768;

export interface ContextQuery {
  /** The first upstream base URL, e.g. http://127.0.0.1:8000/v1. */
  baseUrl: string;
  flavor: UpstreamFlavor;
  servedModel: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

export async function reportedContextTokens(query: ContextQuery): Promise<number | undefined> {
  const base = new URL(query.baseUrl);
  const origin = base.origin;
  const openaiBase = base.pathname.replace(/\/+$/, '') || '/v1';
  switch (query.flavor) {
    case 'vllm':
    case 'sglang': {
      const list = await getJson(`${origin}${openaiBase}/models`, query);
      const models = isRecord(list) && Array.isArray(list.data) ? list.data : [];
      const model = models.find((card: unknown) => isRecord(card) && card.id === query.servedModel) ?? models[0];
      return isRecord(model) ? contextOf(model.max_model_len) : undefined;
    }
    case 'llama-server': {
      const props = await getJson(`${origin}/props`, query);
      const settings = isRecord(props) ? props.default_generation_settings : undefined;
      return isRecord(settings) ? contextOf(settings.n_ctx) : undefined;
    }
    case 'tgi': {
      const info = await getJson(`${origin}/info`, query);
      return isRecord(info) ? contextOf(info.max_total_tokens) : undefined;
    }
    case 'ollama':
    case 'openai':
      return undefined;
  }
}

/** A model list or a props object: a few KB; a longer answer is not this. */
const MAX_BODY_BYTES = 1024 * 1024;

// undici's request(), already loaded for the pool: the global fetch() would load Node's own copy of
// undici (about 8 MB of resident memory) for this one call at start.
async function getJson(url: string, query: ContextQuery): Promise<unknown> {
  const signal = AbortSignal.timeout(query.timeoutMs);
  try {
    const headers: Record<string, string> = query.apiKey ? { authorization: `Bearer ${query.apiKey}` } : {};
    const response = await request(url, { headers, signal });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return undefined;
    }
    const text = await readCappedText(response.body, MAX_BODY_BYTES);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** A context size as reported: a whole number in the range the config itself allows, or nothing. */
function contextOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 16 && value <= 16_777_216
    ? value
    : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
