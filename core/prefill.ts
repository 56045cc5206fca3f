// A prefill: the conversation ends with the assistant's own words, and the answer continues them
// (Anthropic's semantics; vLLM's `continue_final_message`). The answer is the continuation only, and
// the prompt leaves that last turn open, with no new generation prompt after it.
import type { ChatMessage, ChatRequest } from './canonical.js';

/**
 * The text a conversation's answer continues: its last message's, when that is the assistant's, has no
 * tool calls (a server cannot continue a call) and some text that is not whitespace (transformers would
 * then find no place to cut the turn open). Undefined when the conversation asks for a new turn.
 */
export function prefillText(messages: readonly ChatMessage[]): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || (last.tool_calls !== undefined && last.tool_calls.length > 0)) return undefined;
  const content = last.content;
  const text =
    typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => part.text).join('\n') : '';
  return text.trim() === '' ? undefined : text;
}

/** Sets the canonical request's `gateway.prefill` from its messages (the decoders' part); a client's own value never stands. */
export function markPrefill(request: ChatRequest): void {
  if (request.gateway !== undefined) delete request.gateway.prefill;
  const text = prefillText(request.messages);
  if (text !== undefined) (request.gateway ??= {}).prefill = text;
}

/**
 * The prefill this request continues as it goes upstream now: its `gateway.prefill`, while its messages still end
 * with it (the search plugin's later rounds end with tool results: they answer anew).
 */
export function continuedPrefill(request: ChatRequest): string | undefined {
  const prefill = request.gateway?.prefill;
  return prefill !== undefined && prefillText(request.messages) === prefill ? prefill : undefined;
}
