import type { ChatUsage } from '../../core/canonical.js';

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** The cache writes per TTL, as Anthropic reports them (their sum is cache_creation_input_tokens). */
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  /** With the search tool: the searches executed for this answer. */
  server_tool_use?: { web_search_requests: number };
}

/**
 * OpenAI's prompt_tokens includes the cached tokens (and the gateway's cache writes); the message
 * dialect's input_tokens includes neither: reads and writes are reported apart, so no token is
 * counted twice (input + cache_creation + cache_read = prompt_tokens).
 */
export function messagesUsage(usage: ChatUsage | null | undefined): MessagesUsage {
  const details = usage?.prompt_tokens_details;
  const read = details?.cached_tokens ?? 0;
  const write5m = details?.cache_creation?.ephemeral_5m_input_tokens ?? 0;
  const write1h = details?.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const result: MessagesUsage = {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - read - write5m - write1h),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
  };
  if (usage?.web_search_requests !== undefined)
    result.server_tool_use = { web_search_requests: usage.web_search_requests };
  return result;
}
