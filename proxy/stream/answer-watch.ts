// What the metrics and the trace of a request need from its answer, seen on the way to the client's
// encoder: when the first output token went out, the usage the client was told, and why it finished.
import type { ChatChunk, ChatUsage, ResponseEvent } from '../../core/canonical.js';

export class AnswerWatch {
  /** performance.now() when the first chunk with output (text, reasoning or a tool call) was sent. */
  firstTokenAt: number | undefined = undefined;
  /** The last usage the answer carried: its total. */
  usage: ChatUsage | undefined = undefined;
  readonly finishReasons = new Set<string>();

  see(event: ResponseEvent): void {
    if (event.type === 'chunk') {
      const chunk = event.chunk;
      if (chunk.usage) this.usage = chunk.usage;
      if (this.firstTokenAt === undefined && hasOutput(chunk)) this.firstTokenAt = performance.now();
      for (const choice of chunk.choices) if (choice.finish_reason) this.finishReasons.add(choice.finish_reason);
    } else if (event.type === 'completion') {
      if (event.completion.usage) this.usage = event.completion.usage;
      for (const choice of event.completion.choices)
        if (choice.finish_reason) this.finishReasons.add(choice.finish_reason);
    }
  }
}

function hasOutput(chunk: ChatChunk): boolean {
  for (const { delta } of chunk.choices)
    if (delta.content || delta.reasoning_content || delta.reasoning || delta.tool_calls?.length) return true;
  return false;
}
