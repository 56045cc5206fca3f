// Usage across the rounds of one search loop: each round is a whole upstream call, so the client is
// billed for every round's prompt and completion, reported as one usage.
import type { ChatUsage } from '../../core/canonical.js';

/** a + b, field by field (cache reads and writes, reasoning tokens included); undefined only when both are. */
export function addUsage(a: ChatUsage | undefined, b: ChatUsage | undefined): ChatUsage | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const sum: ChatUsage = {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.prompt_tokens + b.prompt_tokens + a.completion_tokens + b.completion_tokens,
  };
  const da = a.prompt_tokens_details;
  const db = b.prompt_tokens_details;
  if (da || db) {
    const details: NonNullable<ChatUsage['prompt_tokens_details']> = {
      cached_tokens: (da?.cached_tokens ?? 0) + (db?.cached_tokens ?? 0),
    };
    if (da?.cache_creation || db?.cache_creation) {
      details.cache_creation = {
        ephemeral_5m_input_tokens:
          (da?.cache_creation?.ephemeral_5m_input_tokens ?? 0) + (db?.cache_creation?.ephemeral_5m_input_tokens ?? 0),
        ephemeral_1h_input_tokens:
          (da?.cache_creation?.ephemeral_1h_input_tokens ?? 0) + (db?.cache_creation?.ephemeral_1h_input_tokens ?? 0),
      };
    }
    sum.prompt_tokens_details = details;
  }
  const ra = a.completion_tokens_details?.reasoning_tokens;
  const rb = b.completion_tokens_details?.reasoning_tokens;
  if (ra !== undefined || rb !== undefined) sum.completion_tokens_details = { reasoning_tokens: (ra ?? 0) + (rb ?? 0) };
  return sum;
}
