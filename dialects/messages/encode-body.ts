import type { ChatCompletion, JsonObject } from '../../core/canonical.js';
import { clientToolCallId, TOOL_USE_PREFIX } from '../../core/tool-call-ids.js';
import { parseToolInput } from './tool-input.js';
import { stopReason } from './stop-reason.js';
import { messagesUsage } from './usage.js';
import { segmentBlocks } from './web-search-blocks.js';

/** The message-dialect response body (spec 2.3) from the upstream's completion; `sign` signs its thinking. */
export function encodeMessagesBody(
  completion: ChatCompletion,
  id: string,
  modelId: string,
  stopSequences: readonly string[],
  sign: (thinking: string) => string,
): JsonObject {
  const choice = completion.choices[0];
  const content: JsonObject[] = [];
  if (completion.segments !== undefined) content.push(...segmentBlocks(completion.segments, sign));
  else {
    const thinking = choice?.message.reasoning_content;
    if (thinking) content.push({ type: 'thinking', thinking, signature: sign(thinking) });
    if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
  }
  const calls = choice?.message.tool_calls ?? [];
  calls.forEach((call, n) =>
    content.push({
      type: 'tool_use',
      id: clientToolCallId(TOOL_USE_PREFIX, call.id, `${id}_${n}`),
      name: call.function.name,
      input: parseToolInput(call.function.arguments),
    }),
  );
  const stop = stopReason(choice?.finish_reason, calls.length > 0, choice?.stop_reason, stopSequences);
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: modelId,
    content,
    stop_reason: stop.reason,
    stop_sequence: stop.sequence,
    usage: { ...messagesUsage(completion.usage) },
  };
}
