import type {
  CanonicalEvent,
  ChatChunk,
  ChatCompletion,
  ChatCompletionChoice,
  ChatToolCall,
  CompletionSegment,
} from '../../core/canonical.js';

/** Folds streamed chunks into the completion they add up to (content joined, tool calls merged by index). */
export class CompletionAccumulator {
  readonly #choices = new Map<number, { choice: ChatCompletionChoice; calls: Map<number, ChatToolCall> }>();
  #id = '';
  #created = 0;
  #model = '';
  #usage: ChatCompletion['usage'] = null;
  /** The answer in order, kept from the first gateway event on (search); undefined for plain upstream answers. */
  #segments: CompletionSegment[] | undefined;

  /** Any canonical event: chunks fold as in `add`; search events and citations keep their place in `segments`. */
  addEvent(event: CanonicalEvent): void {
    if (event.type === 'chunk') {
      this.add(event.chunk);
      return;
    }
    const segments = this.#segments ?? this.#startSegments();
    const last = segments.at(-1);
    switch (event.type) {
      case 'search_call':
        segments.push({ type: 'search_call', id: event.id, query: event.query });
        break;
      case 'search_result':
        segments.push(
          event.error_code === undefined
            ? { type: 'search_result', id: event.id, results: event.results }
            : { type: 'search_result', id: event.id, results: event.results, error_code: event.error_code },
        );
        break;
      case 'citation':
        // A citation belongs to the text it ends; the next text starts a new segment (the encoders' text blocks split there too).
        if (last?.type === 'text') last.citations.push({ marker: event.marker, citation: event.citation });
        break;
      default:
        unknownEvent(event);
    }
  }

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
        entry = {
          choice: { index: part.index, message: { role: 'assistant', content: null }, finish_reason: null },
          calls: new Map(),
        };
        this.#choices.set(part.index, entry);
      }
      const { choice, calls } = entry;
      const delta = part.delta;
      if (delta.content) choice.message.content = (choice.message.content ?? '') + delta.content;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) choice.message.reasoning_content = (choice.message.reasoning_content ?? '') + reasoning;
      if (this.#segments !== undefined && part.index === 0) {
        if (reasoning) this.#segment('reasoning', reasoning);
        if (delta.content) this.#segment('text', delta.content);
      }
      for (const fragment of delta.tool_calls ?? []) {
        let call = calls.get(fragment.index);
        if (call === undefined) {
          call = {
            id: fragment.id ?? '',
            type: 'function',
            function: { name: fragment.function?.name ?? '', arguments: '' },
          };
          calls.set(fragment.index, call);
        } else {
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) call.function.name = fragment.function.name;
        }
        if (fragment.function?.arguments) call.function.arguments += fragment.function.arguments;
      }
      if (part.finish_reason) choice.finish_reason = part.finish_reason;
      if (part.stop_reason !== undefined && part.stop_reason !== null) choice.stop_reason = part.stop_reason;
      if (part.logprobs) choice.logprobs = joinedLogprobs(choice.logprobs, part.logprobs);
    }
  }

  result(): ChatCompletion {
    const choices = [...this.#choices.values()]
      .sort((a, b) => a.choice.index - b.choice.index)
      .map(({ choice, calls }) =>
        calls.size === 0
          ? choice
          : {
              ...choice,
              message: {
                ...choice.message,
                tool_calls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call),
              },
            },
      );
    const completion: ChatCompletion = {
      id: this.#id,
      object: 'chat.completion',
      created: this.#created,
      model: this.#model,
      choices,
      usage: this.#usage,
    };
    if (this.#segments !== undefined) completion.segments = this.#segments;
    return completion;
  }

  /** At the first gateway event: what came before it, as segments (reasoning first, as the encoders open it first). */
  #startSegments(): CompletionSegment[] {
    const message = this.#choices.get(0)?.choice.message;
    const segments: CompletionSegment[] = [];
    if (message?.reasoning_content) segments.push({ type: 'reasoning', text: message.reasoning_content });
    if (message?.content) segments.push({ type: 'text', text: message.content, citations: [] });
    this.#segments = segments;
    return segments;
  }

  #segment(type: 'text' | 'reasoning', text: string): void {
    const segments = this.#segments!;
    const last = segments.at(-1);
    if (last?.type === type && (last.type !== 'text' || last.citations.length === 0)) last.text += text;
    else segments.push(type === 'text' ? { type, text, citations: [] } : { type, text });
  }
}

/** A stream's logprobs come a piece per chunk (`{content: [...]}`): the whole answer's are the pieces joined. */
function joinedLogprobs(earlier: unknown, next: unknown): unknown {
  const before = logprobsContent(earlier);
  const after = logprobsContent(next);
  return before !== undefined && after !== undefined ? { ...(next as object), content: [...before, ...after] } : next;
}

function logprobsContent(logprobs: unknown): unknown[] | undefined {
  if (typeof logprobs !== 'object' || logprobs === null) return undefined;
  const content = (logprobs as { content?: unknown }).content;
  return Array.isArray(content) ? content : undefined;
}

/** A new canonical event type is a compile error here until the accumulator places it. */
function unknownEvent(_event: never): void {}
