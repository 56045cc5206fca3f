// The responses dialect's search tool (spec 2.6), decoded into the canonical request's gateway-side
// `web_search`; the search plugin runs it, and without it the upstream call refuses it with the message below.
import type { SearchUserLocation, WebSearchOptions } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { quoted } from '../../core/printable.js';
import type { WebSearchToolParam } from './types.js';

/** The dialect has no `max_uses`; a request searches at most this often, as the message dialect's default. */
const MAX_USES = 5;

export function webSearchOptions(tool: WebSearchToolParam, index: number): WebSearchOptions {
  const options: WebSearchOptions = {
    max_uses: MAX_USES,
    context_size: tool.search_context_size ?? 'medium',
    unavailable: {
      message: `Web search is not enabled on this gateway (no search plugin in its plugin chain), so the ${quoted(tool.type)} tool cannot be used.`,
      param: `tools[${index}].type`,
    },
  };
  const allowed = tool.filters?.allowed_domains;
  const blocked = tool.filters?.blocked_domains;
  if (allowed != null && allowed.length > 0) options.allowed_domains = allowed;
  if (blocked != null && blocked.length > 0) options.blocked_domains = blocked;
  if (tool.user_location != null)
    options.user_location = userLocation(tool.user_location, `tools[${index}].user_location`);
  return options;
}

/** OpenAI's `{type:'approximate', city, region, country, timezone}`; a field of another type is a 400 naming it. */
function userLocation(value: Record<string, unknown>, param: string): SearchUserLocation {
  if (value.type != null && value.type !== 'approximate')
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for '${param}.type': must be 'approximate'.`,
      `${param}.type`,
    );
  const location: SearchUserLocation = { type: 'approximate' };
  for (const field of ['city', 'region', 'country', 'timezone'] as const) {
    const entry = value[field];
    if (entry == null) continue;
    if (typeof entry !== 'string')
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Invalid value for '${param}.${field}': must be a string.`,
        `${param}.${field}`,
      );
    location[field] = entry;
  }
  return location;
}
