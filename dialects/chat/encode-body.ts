import type { ChatCompletion, ChatUsage, FinishReason, JsonObject } from '../../core/canonical.js';
import type { ServiceTier } from '../../core/service-tier.js';
import { CALL_PREFIX, clientToolCallId } from '../../core/tool-call-ids.js';

/** The chat-completions response body (spec 2.5): the upstream's completion under our id and the public model id. */
export function encodeChatBody(
  completion: ChatCompletion,
  id: string,
  created: number,
  modelId: string,
  serviceTier?: ServiceTier,
): JsonObject {
  const choices = completion.choices.map((choice) => {
    const toolCalls = choice.message.tool_calls ?? [];
    const message: JsonObject = { role: 'assistant', content: choice.message.content ?? null };
    if (toolCalls.length > 0)
      message.tool_calls = toolCalls.map((call, n) => ({
        ...call,
        id: clientToolCallId(CALL_PREFIX, call.id, `${id}_${choice.index}_${n}`),
      }));
    if (choice.message.reasoning_content) message.reasoning_content = choice.message.reasoning_content;
    return {
      index: choice.index,
      message,
      logprobs: choice.logprobs ?? null,
      finish_reason: chatFinishReason(choice.finish_reason, toolCalls.length > 0),
    };
  });
  const body: JsonObject = { id, object: 'chat.completion', created, model: modelId, choices };
  if (serviceTier !== undefined) body.service_tier = serviceTier;
  if (completion.usage) body.usage = chatUsage(completion.usage);
  return body;
}

/** `tool_calls` whenever the turn called a tool, even if the upstream said `stop` (docs/wire.md). */
export function chatFinishReason(reason: FinishReason | null | undefined, calledTool: boolean): FinishReason {
  if (calledTool && (reason === 'stop' || reason == null)) return 'tool_calls';
  return reason ?? 'stop';
}

/**
 * Usage with total_tokens recomputed as the sum the spec defines. prompt_tokens includes the cached
 * tokens, as OpenAI counts them; the gateway's own `cache_creation` (message-dialect accounting) is
 * not an OpenAI field and stays out. The reasoning tokens are shown when they are known.
 */
export function chatUsage(usage: ChatUsage): ChatUsage {
  const result: ChatUsage = {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
  const details = usage.prompt_tokens_details;
  if (details)
    result.prompt_tokens_details =
      details.cache_creation === undefined ? details : { cached_tokens: details.cached_tokens ?? 0 };
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined) result.completion_tokens_details = { reasoning_tokens: reasoning };
  return result;
}
