// Search fields of a canonical request that no plugin consumed: the gateway has no search plugin in its
// chain, so the dialect's search tool (or a replayed search turn) is refused (spec rule 6).
import type { ChatRequest } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';

/** Throws the dialect's "web search is not enabled" 400 when a search field is still there. */
export function refuseUnhandledSearch(request: ChatRequest): void {
  const search = request.gateway?.web_search;
  if (search !== undefined)
    throw new GatewayError('GW_ERR_REQUEST_UNSUPPORTED_TOOL', search.unavailable.message, search.unavailable.param);
  const replayed = request.gateway?.web_search_replay?.[0];
  if (replayed !== undefined)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid block at '${replayed.param}': web search is not enabled on this gateway.`,
      `${replayed.param}.type`,
    );
}
