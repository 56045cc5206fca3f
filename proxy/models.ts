import type { JsonObject } from './canonical.js';
import { codexModelInfo } from './codex-model-info.js';

export interface ModelInfo {
  id: string;
  /** More ids clients may send for the model (`model.aliases`): each is listed as a model of its own. */
  aliases: readonly string[];
  displayName: string;
  ownedBy: string;
  /** Unix seconds. */
  created: number;
  /** The context window in tokens (Anthropic's `max_input_tokens`). */
  contextTokens: number;
  /** The largest `max_tokens` a /v1/messages request may ask for (Anthropic's `max_tokens`). */
  maxTokens: number;
}

/**
 * The catalogue body: the model under its id, then under each alias, in a shape both the OpenAI and
 * the Anthropic SDKs read (docs/wire.md), with the limits of Anthropic's Models API, which clients
 * such as Claude Code read.
 */
export function modelsBody(model: ModelInfo): JsonObject {
  const ids = [model.id, ...model.aliases];
  const data = ids.map((id) => ({
    id,
    object: 'model',
    type: 'model',
    created: model.created,
    created_at: new Date(model.created * 1000).toISOString(),
    owned_by: model.ownedBy,
    display_name: model.displayName,
    max_input_tokens: model.contextTokens,
    max_tokens: model.maxTokens,
  }));
  return {
    object: 'list',
    data,
    has_more: false,
    first_id: ids[0]!,
    last_id: ids.at(-1)!,
    // Codex reads its model metadata from here (codex-model-info.ts).
    models: [codexModelInfo(model)],
  };
}
