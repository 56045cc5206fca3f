// llama-server continues a prefill (a trailing assistant message) and repeats it at the start of the
// answer, streamed and not: its chat parser reads the prompt's open turn, prefill included, as the start
// of what the model wrote. The client asked for the continuation only (Anthropic's semantics), so the
// repeated text is cut here. A streamed answer's text is held back while it is still a prefix of the
// prefill, and released once it proves to be something else: an answer that does not start with the
// prefill passes whole. Reasoning and tool calls are never touched.
import type { ChatChunk, ChatCompletion } from '../../core/canonical.js';

/** A streamed answer's echo, cut chunk by chunk (per choice). */
export class PrefillEcho {
  readonly #prefill: string;
  /** Per choice still being matched: the text held back so far (a proper prefix of the prefill). */
  readonly #held = new Map<number, string>();
  /** Choices whose echo was cut, or proved absent. */
  readonly #decided = new Set<number>();

  constructor(prefill: string) {
    this.#prefill = prefill;
  }

  see(chunk: ChatChunk): void {
    for (const choice of chunk.choices) {
      const { delta, index } = choice;
      if (this.#decided.has(index)) continue;
      const held = this.#held.get(index) ?? '';
      // An answer that moves on to tool calls, or ends, before the whole prefill came was no echo.
      const movedOn = Boolean(choice.finish_reason) || (delta.tool_calls?.length ?? 0) > 0;
      const content = delta.content;
      if (typeof content === 'string' && content !== '') {
        const text = held + content;
        if (!movedOn && text.length < this.#prefill.length && this.#prefill.startsWith(text)) {
          this.#held.set(index, text);
          delta.content = '';
        } else {
          delta.content = text.startsWith(this.#prefill) ? text.slice(this.#prefill.length) : text;
          this.#decide(index);
        }
      } else if (movedOn) {
        if (held !== '') delta.content = held;
        this.#decide(index);
      }
    }
  }

  #decide(index: number): void {
    this.#held.delete(index);
    this.#decided.add(index);
  }
}

/** A non-streamed answer without the echo: each choice's content loses the prefill it starts with (null when nothing is left). */
export function stripPrefillEcho(completion: ChatCompletion, prefill: string): void {
  for (const { message } of completion.choices) {
    if (message.content?.startsWith(prefill)) message.content = message.content.slice(prefill.length) || null;
  }
}
