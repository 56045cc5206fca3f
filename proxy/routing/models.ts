import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../../core/canonical.js';
import { codexModelInfo } from './codex-model-info.js';
import { modelNotFound } from '../../core/model-not-found.js';
import type { ApiFamily } from '../../core/route.js';

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

/** What `GET /v1/models` and `GET /v1/models/{id}` answer, made once at start. */
export interface ModelCatalogue {
  /** The body of `GET /v1/models`. */
  readonly list: JsonObject;
  /** The body of `GET /v1/models/{id}` in the caller's shape; a 404 `model_not_found` for an id not served. */
  retrieve(id: string, family: ApiFamily): JsonObject;
}

export function modelCatalogue(model: ModelInfo): ModelCatalogue {
  const ids = new Set([model.id, ...model.aliases]);
  return {
    list: modelsBody(model),
    retrieve(id, dialect) {
      if (!ids.has(id)) throw modelNotFound(id, model, dialect);
      return dialect === 'anthropic' ? anthropicModel(model, id) : listedModel(model, id);
    },
  };
}

/**
 * The catalogue body: the model under its id, then under each alias, in a shape both the OpenAI and
 * the Anthropic SDKs read (docs/wire.md), with the limits of Anthropic's Models API, which clients
 * such as Claude Code read.
 */
function modelsBody(model: ModelInfo): JsonObject {
  const ids = [model.id, ...model.aliases];
  return {
    object: 'list',
    data: ids.map((id) => listedModel(model, id)),
    has_more: false,
    first_id: ids[0]!,
    last_id: ids.at(-1)!,
    // Codex reads its model metadata from here (codex-model-info.ts).
    models: [codexModelInfo(model)],
  };
}

/** One model of the list: OpenAI's `{id, object, created, owned_by}` and Anthropic's fields beside them. */
function listedModel(model: ModelInfo, id: string): JsonObject {
  return {
    id,
    object: 'model',
    type: 'model',
    created: model.created,
    created_at: rfc3339(model.created),
    owned_by: model.ownedBy,
    display_name: model.displayName,
    max_input_tokens: model.contextTokens,
    max_tokens: model.maxTokens,
  };
}

/** Anthropic's ModelInfo: `{type, id, display_name, created_at}` with the limits its Models API gives. */
function anthropicModel(model: ModelInfo, id: string): JsonObject {
  return {
    type: 'model',
    id,
    display_name: model.displayName,
    created_at: rfc3339(model.created),
    max_input_tokens: model.contextTokens,
    max_tokens: model.maxTokens,
  };
}

function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString();
}

/**
 * Whose Models API a caller speaks: Anthropic's when it sends `anthropic-version` (every Anthropic SDK
 * does) or its key as `x-api-key` (Anthropic's auth header), OpenAI's otherwise.
 */
export function apiFamilyOf(headers: IncomingHttpHeaders): ApiFamily {
  return headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined ? 'anthropic' : 'openai';
}
