import { GatewayError } from '../proxy/errors.js';

/** How a dialect's vendor words "no such model": OpenAI's (chat, responses) or Anthropic's (messages). */
export type ModelNotFoundWording = 'openai' | 'anthropic';

/**
 * The gateway serves one model id: every decoder runs this check right after the schema (spec rule 4),
 * and a request for another model is a 404 `model_not_found` on `model`, worded as the dialect's vendor words it.
 */
export function servedModelCheck(servedId: string, wording: ModelNotFoundWording): (requested: string) => void {
  return (requested) => {
    if (requested === servedId) return;
    const message =
      wording === 'anthropic'
        ? `model: '${requested}' was not found; this gateway serves '${servedId}'.`
        : `The model '${requested}' does not exist; this gateway serves '${servedId}'.`;
    throw new GatewayError('GW_ERR_MODEL_NOT_FOUND', message, 'model');
  };
}
