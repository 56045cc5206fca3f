import { GatewayError } from './errors.js';
import { quoted } from './printable.js';

/** How a vendor words "no such model": OpenAI's (chat, responses) or Anthropic's (messages). */
export type ModelNotFoundWording = 'openai' | 'anthropic';

/** The ids the gateway serves the one model under: `model.id`, then `model.aliases`. */
export interface ServedIds {
  readonly id: string;
  readonly aliases: readonly string[];
}

/**
 * The 404 `model_not_found` on `model` for an id the gateway does not serve, worded as the caller's
 * vendor words it: a request body's model (every dialect's decoder) and `GET /v1/models/{id}` say the same.
 */
export function modelNotFound(requested: string, served: ServedIds, wording: ModelNotFoundWording): GatewayError {
  const names =
    served.aliases.length === 0
      ? `'${served.id}'`
      : `'${served.id}' (also named ${served.aliases.map((alias) => `'${alias}'`).join(', ')})`;
  const message =
    wording === 'anthropic'
      ? `model: ${quoted(requested)} was not found; this gateway serves ${names}.`
      : `The model ${quoted(requested)} does not exist; this gateway serves ${names}.`;
  return new GatewayError('GW_ERR_MODEL_NOT_FOUND', message, 'model');
}
