// The message dialect's server search tool (spec 2.2, rule 6) and its replayed blocks, decoded into the
// canonical request's gateway-side fields; the search plugin runs them, and without it the upstream
// call refuses them with the messages below.
import {
  SEARCH_FUNCTION_NAME,
  type ChatMessage,
  type ChatToolCall,
  type ReplayedSearch,
  type SearchUserLocation,
  type WebSearchOptions,
} from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { quoted } from '../../core/printable.js';
import type { ContentBlock, ToolParam } from './types.js';
import { checkSearchCallers } from './web-search-callers.js';

/** `web_search_20250305` and later dated versions of the same tool (`web_search_20260209`, `web_search_20260318`). */
const SEARCH_TOOL_TYPE = /^web_search_\d{8}$/;

const DEFAULT_MAX_USES = 5;
/** The most searches one request may allow: each is billed, and each is a round trip to the model. */
const MAX_USES_LIMIT = 100;

export function isSearchTool(tool: ToolParam): boolean {
  return tool.type !== undefined && SEARCH_TOOL_TYPE.test(tool.type);
}

/** The search tool's options, checked field by field (400 naming the field). */
export function webSearchOptions(param: ToolParam, index: number): WebSearchOptions {
  const tool = param as ToolParam & Record<string, unknown>;
  const at = (field: string): string => `tools[${index}].${field}`;
  const invalid = (field: string, why: string): GatewayError =>
    new GatewayError('GW_ERR_REQUEST_INVALID', `Invalid value for '${at(field)}': ${why}.`, at(field));
  if (tool.name !== SEARCH_FUNCTION_NAME)
    throw invalid('name', `the ${quoted(tool.type)} tool must be named '${SEARCH_FUNCTION_NAME}'`);
  const maxUses = tool.max_uses ?? DEFAULT_MAX_USES;
  if (typeof maxUses !== 'number' || !Number.isInteger(maxUses) || maxUses < 1 || maxUses > MAX_USES_LIMIT)
    throw invalid('max_uses', `must be an integer from 1 to ${MAX_USES_LIMIT}`);
  checkSearchCallers(tool, invalid);
  const options: WebSearchOptions = {
    max_uses: maxUses,
    context_size: 'medium',
    unavailable: {
      message: `The server tool ${quoted(tool.type)} needs web search, which is not enabled on this gateway.`,
      param: at('type'),
    },
  };
  const allowed = domains(tool.allowed_domains, () => invalid('allowed_domains', 'must be an array of domain strings'));
  const blocked = domains(tool.blocked_domains, () => invalid('blocked_domains', 'must be an array of domain strings'));
  if (allowed !== undefined && blocked !== undefined)
    throw invalid('blocked_domains', "use either 'allowed_domains' or 'blocked_domains', not both");
  if (allowed !== undefined) options.allowed_domains = allowed;
  if (blocked !== undefined) options.blocked_domains = blocked;
  if (tool.user_location != null)
    options.user_location = userLocation(tool.user_location, () =>
      invalid(
        'user_location',
        "must be an object with 'type' 'approximate' and optional string city, region, country, timezone",
      ),
    );
  return options;
}

/** A domain list; absent, null or empty means not set (Claude Code sends `blocked_domains: []` beside its allowed list). */
function domains(value: unknown, fail: () => GatewayError): string[] | undefined {
  if (value == null || (Array.isArray(value) && value.length === 0)) return undefined;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string' && entry.trim() !== '')) throw fail();
  return value as string[];
}

/** Anthropic's `{type:'approximate', city, region, country, timezone}` (and the responses dialect's, the same shape). */
export function userLocation(value: unknown, fail: () => GatewayError): SearchUserLocation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail();
  const record = value as Record<string, unknown>;
  if (record.type !== undefined && record.type !== 'approximate') throw fail();
  const location: SearchUserLocation = { type: 'approximate' };
  for (const field of ['city', 'region', 'country', 'timezone'] as const) {
    const entry = record[field];
    if (entry == null) continue;
    if (typeof entry !== 'string') throw fail();
    location[field] = entry;
  }
  return location;
}

/** A replayed `server_tool_use` block: the assistant's call of the search function (other server tools: 400). */
export function replayedCall(block: ContentBlock & Record<string, unknown>, param: string): ChatToolCall {
  if (block.name !== SEARCH_FUNCTION_NAME) {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid block at '${param}': the server tool ${quoted(block.name)} is not supported; only '${SEARCH_FUNCTION_NAME}' is.`,
      `${param}.name`,
    );
  }
  if (typeof block.id !== 'string' || block.id === '')
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `Missing required field '${param}.id'.`, `${param}.id`);
  const input = typeof block.input === 'object' && block.input !== null ? block.input : {};
  return { id: block.id, type: 'function', function: { name: SEARCH_FUNCTION_NAME, arguments: JSON.stringify(input) } };
}

/**
 * A replayed `web_search_tool_result` block: the tool message that answers its call (its text is
 * filled in by the search plugin once the sealed contents are verified) and the replay record.
 */
export function replayedResult(
  block: ContentBlock & Record<string, unknown>,
  param: string,
  calls: readonly ChatToolCall[],
): { message: ChatMessage; replay: ReplayedSearch } {
  const id = block.tool_use_id;
  if (typeof id !== 'string' || !calls.some((call) => call.id === id)) {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid block at '${param}': 'tool_use_id' must name a 'server_tool_use' block before it in the same turn.`,
      `${param}.tool_use_id`,
    );
  }
  return {
    message: { role: 'tool', tool_call_id: id, content: '' },
    replay: { tool_call_id: id, param, content: block.content },
  };
}
