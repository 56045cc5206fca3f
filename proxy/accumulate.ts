import type { ChatChunk, ChatCompletion, ChatCompletionChoice, ChatToolCall } from './canonical.js';

/** Folds streamed chunks into the completion they add up to (content joined, tool calls merged by index). */
export class CompletionAccumulator {
  readonly #choices = new Map<number, { choice: ChatCompletionChoice; calls: Map<number, ChatToolCall> }>();
  #id = '';
  #created = 0;
  #model = '';
  #usage: ChatCompletion['usage'] = null;

  add(chunk: ChatChunk): void {
    if (this.#id === '') {
      this.#id = chunk.id;
      this.#created = chunk.created;
      this.#model = chunk.model;
    }
    if (chunk.usage) this.#usage = chunk.usage;
    for (const part of chunk.choices) {
      let entry = this.#choices.get(part.index);
      if (entry === undefined) {
        entry = { choice: { index: part.index, message: { role: 'assistant', content: null }, finish_reason: null }, calls: new Map() };
        this.#choices.set(part.index, entry);
      }
      const { choice, calls } = entry;
      const delta = part.delta;
      if (delta.content) choice.message.content = (choice.message.content ?? '') + delta.content;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) choice.message.reasoning_content = (choice.message.reasoning_content ?? '') + reasoning;
      for (const fragment of delta.tool_calls ?? []) {
        let call = calls.get(fragment.index);
        if (call === undefined) {
          call = { id: fragment.id ?? '', type: 'function', function: { name: fragment.function?.name ?? '', arguments: '' } };
          calls.set(fragment.index, call);
        } else {
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) call.function.name = fragment.function.name;
        }
        if (fragment.function?.arguments) call.function.arguments += fragment.function.arguments;
      }
      if (part.finish_reason) choice.finish_reason = part.finish_reason;
      if (part.stop_reason !== undefined && part.stop_reason !== null) choice.stop_reason = part.stop_reason;
      if (part.logprobs) choice.logprobs = part.logprobs;
    }
  }

  result(): ChatCompletion {
    const choices = [...this.#choices.values()]
      .sort((a, b) => a.choice.index - b.choice.index)
      .map(({ choice, calls }) => (calls.size === 0 ? choice : { ...choice, message: { ...choice.message, tool_calls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call) } }));
    return { id: this.#id, object: 'chat.completion', created: this.#created, model: this.#model, choices, usage: this.#usage };
  }
}
