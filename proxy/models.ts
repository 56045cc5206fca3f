import type { JsonObject } from './canonical.js';
import { codexModelInfo } from './codex-model-info.js';

export interface ModelInfo {
  id: string;
  displayName: string;
  ownedBy: string;
  /** Unix seconds. */
  created: number;
  /** The model's context window in tokens. */
  contextTokens: number;
}

/** The catalogue body: one model, in a shape both the OpenAI and the Anthropic SDKs read (docs/wire.md). */
export function modelsBody(model: ModelInfo): JsonObject {
  const entry = {
    id: model.id,
    object: 'model',
    type: 'model',
    created: model.created,
    created_at: new Date(model.created * 1000).toISOString(),
    owned_by: model.ownedBy,
    display_name: model.displayName,
  };
  return {
    object: 'list',
    data: [entry],
    has_more: false,
    first_id: model.id,
    last_id: model.id,
    // Codex reads its model metadata from here (codex-model-info.ts).
    models: [codexModelInfo(model)],
  };
}
