import type { ChatCompletion, ChatCompletionChoice, ChatToolCall } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { contentAfterThinking } from './thinking-separator.js';
import { reportedStop } from './matched-stop.js';

/**
 * A non-streamed answer's body → the canonical completion: checked, and with only what a streamed
 * answer accumulates to (proxy/stream/accumulate.ts), so the encoders read one completion form. Empty text
 * is no text (`content: null`), reasoning and tool calls appear only when there are some, a call's
 * missing id or name is empty, choices are in index order.
 */
export function upstreamCompletion(text: string): ChatCompletion {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent a body that is not JSON.');
  }
  const completion = parsed as ChatCompletion;
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray(completion.choices)) {
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent a completion without choices.');
  }
  if (!completion.choices.every(hasMessage))
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent a choice without a message.');
  return {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map(canonicalChoice).sort((a, b) => a.index - b.index),
    usage: completion.usage || null,
  };
}

/** vLLM before 0.11, SGLang and llama-server name the reasoning `reasoning_content`; current vLLM `reasoning`. */
type UpstreamMessage = ChatCompletionChoice['message'] & { reasoning?: string | null };

function canonicalChoice(choice: ChatCompletionChoice): ChatCompletionChoice {
  const {
    content,
    reasoning_content: reasoningContent,
    reasoning: named,
    tool_calls: calls,
  } = choice.message as UpstreamMessage;
  const reasoning = reasoningContent || named;
  const message: ChatCompletionChoice['message'] = { role: 'assistant', content: content || null };
  if (reasoning) {
    message.reasoning_content = reasoning;
    message.content = contentAfterThinking(message);
  }
  if (calls && calls.length > 0) message.tool_calls = calls.map(canonicalCall);
  const canonical: ChatCompletionChoice = { index: choice.index, message, finish_reason: choice.finish_reason || null };
  const stop = reportedStop(choice);
  if (stop !== undefined) canonical.stop_reason = stop;
  if (choice.logprobs) canonical.logprobs = choice.logprobs;
  return canonical;
}

function canonicalCall(call: ChatToolCall): ChatToolCall {
  return {
    id: call.id ?? '',
    type: 'function',
    function: { name: call.function?.name ?? '', arguments: call.function?.arguments || '' },
  };
}

function hasMessage(choice: unknown): boolean {
  return (
    typeof choice === 'object' &&
    choice !== null &&
    typeof (choice as { message?: unknown }).message === 'object' &&
    (choice as { message?: unknown }).message !== null
  );
}
