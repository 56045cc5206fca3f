// A chunk can be left with nothing once the terminal has shaped it: llama-server's `"\n"` after `</think>`
// is cut (thinking-separator.ts), a held-back piece of a tag (reasoning-tags.ts) or of an echoed prefill
// (prefill-echo.ts) waits for the next chunk, a tag itself is dropped. Such a chunk reaches no client: every
// dialect would show it as an empty delta (chat's openai profile as `{"delta":{},"finish_reason":null}`).
import type { ChatChunk, ChatChunkChoice } from '../../core/canonical.js';

/** Whether the chunk carries nothing: no choice with anything in it, and no usage. */
export function isEmptyChunk(chunk: ChatChunk): boolean {
  return !chunk.usage && !chunk.choices.some(carriesSomething);
}

/**
 * A choice carries something when it has text, reasoning, a tool-call fragment, a finish reason, logprobs or
 * the role (the opening chunk that OpenAI's wire starts a choice with).
 */
function carriesSomething(choice: ChatChunkChoice): boolean {
  const delta = choice.delta;
  return Boolean(
    choice.finish_reason ||
    choice.logprobs ||
    delta.role ||
    delta.content ||
    delta.reasoning_content ||
    delta.reasoning ||
    (delta.tool_calls && delta.tool_calls.length > 0),
  );
}
