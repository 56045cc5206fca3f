import type { ChatUsage } from '../../../proxy/canonical.js';

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/**
 * OpenAI's prompt_tokens includes the cached tokens; the message dialect's input_tokens does not
 * (cache reads are reported apart), so they are never counted twice.
 */
export function messagesUsage(usage: ChatUsage | null | undefined): MessagesUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: (usage?.prompt_tokens ?? 0) - cached,
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}
