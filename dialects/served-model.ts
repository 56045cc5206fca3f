import { modelNotFound, type ModelNotFoundWording } from '../core/model-not-found.js';

/**
 * The gateway serves one model, under its id and the config's aliases (`model.aliases`, names clients
 * such as Claude Code send for it). Every decoder runs this check on the body first, before the schema
 * or any other field (spec rule 4): a request for any other model is a 404 `model_not_found` on `model`,
 * worded as the dialect's vendor words it, whatever else is wrong with it (a client's default
 * `max_tokens` over the limit is not what its user needs to hear about first). A missing or non-string
 * `model` is left to the schema: a 400 naming the field.
 */
export function servedModelCheck(
  servedId: string,
  wording: ModelNotFoundWording,
  aliases: readonly string[] = [],
): (body: unknown) => void {
  const served = { id: servedId, aliases };
  const known = new Set([servedId, ...aliases]);
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
    const requested = (body as Record<string, unknown>).model;
    if (typeof requested !== 'string' || known.has(requested)) return;
    throw modelNotFound(requested, served, wording);
  };
}
