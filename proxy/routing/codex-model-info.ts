import type { JsonObject } from '../../core/canonical.js';

/**
 * Codex's model metadata for the served model, as its `/models` endpoint gives it (`ModelInfo` in codex-rs
 * `protocol/src/openai_models.rs`; GET /v1/models lists it under `models`). Codex fetches it only for a provider
 * with command auth (`[model_providers.<id>.auth] command = …`, docs/endpoints.md "Codex"); without it Codex warns
 * "Model metadata for `<model>` not found" and assumes a 272k context. The fields are the ones Codex 0.169 requires,
 * valued as its own fallback for an unknown model except where the gateway knows better: the context window,
 * text-only input, and short base instructions fit for a small open model (Codex uses them instead of its own).
 */
export function codexModelInfo(model: { id: string; displayName: string; contextTokens: number }): JsonObject {
  return {
    slug: model.id,
    display_name: model.displayName,
    description: null,
    supported_reasoning_levels: [],
    shell_type: 'default',
    visibility: 'list',
    supported_in_api: true,
    priority: 1,
    upgrade: null,
    base_instructions: BASE_INSTRUCTIONS,
    supports_reasoning_summaries: false,
    support_verbosity: false,
    default_verbosity: null,
    apply_patch_tool_type: null,
    truncation_policy: { mode: 'bytes', limit: 10_000 },
    supports_parallel_tool_calls: false,
    context_window: model.contextTokens,
    experimental_supported_tools: [],
    input_modalities: ['text'],
  };
}

const BASE_INSTRUCTIONS = [
  "You are a coding agent in the Codex CLI, working in the user's workspace on their machine.",
  'Use the tools you are given to read files, run commands and make changes; do what the user asks, then say briefly what you did.',
  'Keep answers short and concrete. Do not invent tool results: run the tool and use its output.',
].join('\n');
