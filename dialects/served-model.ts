import { GatewayError } from '../proxy/errors.js';

/** How a dialect's vendor words "no such model": OpenAI's (chat, responses) or Anthropic's (messages). */
export type ModelNotFoundWording = 'openai' | 'anthropic';

/**
 * The gateway serves one model, under its id and the config's aliases (`model.aliases`, names clients
 * such as Claude Code send for it): every decoder runs this check right after the schema (spec rule 4),
 * and a request for any other model is a 404 `model_not_found` on `model`, worded as the dialect's vendor words it.
 */
export function servedModelCheck(
  servedId: string,
  wording: ModelNotFoundWording,
  aliases: readonly string[] = [],
): (requested: string) => void {
  const known = new Set([servedId, ...aliases]);
  const served =
    aliases.length === 0
      ? `'${servedId}'`
      : `'${servedId}' (also named ${aliases.map((alias) => `'${alias}'`).join(', ')})`;
  return (requested) => {
    if (known.has(requested)) return;
    const message =
      wording === 'anthropic'
        ? `model: '${requested}' was not found; this gateway serves ${served}.`
        : `The model '${requested}' does not exist; this gateway serves ${served}.`;
    throw new GatewayError('GW_ERR_MODEL_NOT_FOUND', message, 'model');
  };
}
