import type { ChatChunk, ChatCompletion } from '../../core/canonical.js';

/** A non-streamed round's completion as the one chunk that carries all of it, so a round reads one event form. */
export function completionAsChunk(completion: ChatCompletion): ChatChunk {
  return {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map((choice) => ({
      index: choice.index,
      delta: {
        role: 'assistant',
        content: choice.message.content,
        reasoning_content: choice.message.reasoning_content ?? null,
        tool_calls:
          choice.message.tool_calls?.map((call, index) => ({
            index,
            id: call.id,
            type: call.type,
            function: call.function,
          })) ?? null,
      },
      finish_reason: choice.finish_reason,
      stop_reason: choice.stop_reason ?? null,
      logprobs: choice.logprobs ?? null,
    })),
    usage: completion.usage ?? null,
  };
}
