// Qwen3 writes `</think>\n\n` before its answer, and the reasoning parser leaves those newlines at the head
// of the content (beside tool calls, they are all of it). They are the format's, not the answer's: the
// template drops them again when the turn comes back (`content.lstrip('\n')`). So the newlines that open
// the content after reasoning are cut here, streamed and not, and no client gets an empty text block.
import type { ChatChunk, ChatCompletionChoice } from '../../core/canonical.js';

const LEADING_NEWLINES = /^\n+/;

/** A streamed answer's separator, cut chunk by chunk (per choice). */
export class ThinkingSeparator {
  /** Choices that reasoned and whose content has not started yet. */
  readonly #pending = new Set<number>();
  /** Choices whose content has started. */
  readonly #answering = new Set<number>();

  see(chunk: ChatChunk): void {
    for (const choice of chunk.choices) {
      const { delta, index } = choice;
      if (delta.reasoning_content || delta.reasoning) {
        if (!this.#answering.has(index)) this.#pending.add(index);
      }
      const content = delta.content;
      if (typeof content !== 'string' || content === '') continue;
      if (this.#pending.has(index)) {
        delta.content = content.replace(LEADING_NEWLINES, '');
        if (delta.content === '') continue;
        this.#pending.delete(index);
      }
      this.#answering.add(index);
    }
  }
}

/** A non-streamed answer's content, without the newlines that open it after reasoning (null when nothing is left). */
export function contentAfterThinking(message: ChatCompletionChoice['message']): string | null {
  const { content, reasoning_content: reasoning } = message;
  if (!content) return null;
  return (reasoning ? content.replace(LEADING_NEWLINES, '') : content) || null;
}
