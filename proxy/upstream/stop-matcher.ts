// Stop strings matched in the gateway, for the servers that do not say which one ended an answer
// (llama-server, TGI, Ollama and OpenAI answer `finish_reason: stop` for a stop string as for the end of
// turn, so the message dialect could never report `stop_sequence`). Their requests go up without `stop`,
// and the gateway scans the answer's content as it streams:
// - only the content, never the reasoning or the tool calls: a stop string never cuts `<think>`;
// - content is held back only as far as it could be the start of a stop string, and goes on as soon as it
//   cannot, or when its choice ends (a finish, a tool call);
// - at the first stop string completed (the one that ends first; on a tie, the first in the request's
//   list) the text is cut before it and the choice ends with `finish_reason: stop` and `stop_reason: <the
//   string>`, as vLLM reports one; what the upstream sends for it afterwards is dropped. Once every choice
//   has ended (`over`), the terminal stops reading and aborts the upstream call.
// Each stop string is scanned by its KMP automaton: a chunk costs its length × the number of stop strings,
// however long they are.
import type { ChatChunk, ChatChunkChoice, ChatCompletion, ChatUsage } from '../../core/canonical.js';

/** A stop string and its KMP failure table. */
class StopString {
  readonly text: string;
  /** For each prefix length, the length of its longest proper suffix that is also a prefix. */
  readonly #fail: Int32Array;

  constructor(text: string) {
    this.text = text;
    this.#fail = new Int32Array(text.length);
    for (let i = 1, k = 0; i < text.length; i++) {
      while (k > 0 && text.charCodeAt(i) !== text.charCodeAt(k)) k = this.#fail[k - 1]!;
      if (text.charCodeAt(i) === text.charCodeAt(k)) k++;
      this.#fail[i] = k;
    }
  }

  /** From `state` (how much of this string the text so far ends with, less than all of it), after one more UTF-16 code unit. */
  next(state: number, code: number): number {
    let k = state;
    while (k > 0 && this.text.charCodeAt(k) !== code) k = this.#fail[k - 1]!;
    return this.text.charCodeAt(k) === code ? k + 1 : 0;
  }
}

/** One choice's scan: how much of each stop string its content ends with, and the content held back. */
interface ChoiceScan {
  states: Int32Array;
  held: string;
  ended: boolean;
}

/** Where a stop string completes in a text: the text before it, and the string. */
interface StopMatch {
  before: string;
  stop: string;
}

export class StopMatcher {
  readonly #stops: StopString[];
  readonly #choices: number;
  readonly #scans = new Map<number, ChoiceScan>();
  /** The chunk fields a released text goes out under (the last chunk's). */
  #envelope: Pick<ChatChunk, 'id' | 'object' | 'created' | 'model'> | undefined;
  /** The usage of a chunk held back whole: it goes out on the next chunk (a running usage is never lost). */
  #heldUsage: ChatUsage | undefined;
  #matched = false;
  #ended = 0;

  /** `stops`: the request's stop strings (empty ones never match); `choices`: how many the answer has (the request's `n`). */
  constructor(stops: readonly string[], choices: number) {
    this.#stops = stops.filter((stop) => stop !== '').map((stop) => new StopString(stop));
    this.#choices = choices;
  }

  /** The answer is over before the upstream's end: a stop string ended a choice, and every choice has ended. */
  get over(): boolean {
    return this.#matched && this.#ended >= this.#choices;
  }

  /** Passes the chunk on, its content cut at a stop string or held back where it may begin one (then maybe nothing goes on). */
  see(chunk: ChatChunk, emit: (chunk: ChatChunk) => void): void {
    this.#envelope = { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model };
    // The usage-only chunk that ends a stream.
    if (chunk.choices.length === 0) {
      emit(chunk);
      return;
    }
    const kept: ChatChunkChoice[] = [];
    for (const choice of chunk.choices) {
      const scan = this.#scan(choice.index);
      if (scan.ended) continue;
      const hadContent = typeof choice.delta.content === 'string' && choice.delta.content !== '';
      const before = this.#take(choice, scan);
      if (before !== '') emit(this.#withHeldUsage(this.#textChunk(choice.index, before)));
      if (!hadContent || !isEmpty(choice)) kept.push(choice);
    }
    if (kept.length === 0) {
      if (chunk.usage) this.#heldUsage = chunk.usage;
      return;
    }
    chunk.choices = kept;
    emit(this.#withHeldUsage(chunk));
  }

  /** The upstream's answer is over, or the gateway stopped reading it: the content still held goes out. */
  flush(emit: (chunk: ChatChunk) => void): void {
    for (const [index, scan] of this.#scans) {
      if (scan.ended || scan.held === '') continue;
      const text = scan.held;
      scan.held = '';
      emit(this.#withHeldUsage(this.#textChunk(index, text)));
    }
  }

  /**
   * Scans the choice's content and cuts it: at a stop string (the choice ends there), or before the tail that
   * may begin one (held back). Returns content held from earlier chunks that must go out before this choice
   * (its delta carries reasoning, which the encoders put before content).
   */
  #take(choice: ChatChunkChoice, scan: ChoiceScan): string {
    const delta = choice.delta;
    const content = typeof delta.content === 'string' ? delta.content : '';
    let before = '';
    let prefix = scan.held;
    scan.held = '';
    if (prefix !== '' && (delta.reasoning_content || delta.reasoning)) {
      before = prefix;
      prefix = '';
      scan.states.fill(0);
    }
    const match = this.#scanText(scan, prefix, content);
    if (match !== undefined) {
      setContent(choice, match.before);
      // The answer ends at the stop string: a tool call after it was never to be made.
      delete delta.tool_calls;
      choice.finish_reason = 'stop';
      choice.stop_reason = match.stop;
      this.#matched = true;
      this.#end(scan);
      return before;
    }
    const text = prefix + content;
    const ending = Boolean(choice.finish_reason) || (delta.tool_calls?.length ?? 0) > 0;
    const hold = ending ? 0 : Math.min(text.length, longest(scan.states));
    if (ending) scan.states.fill(0);
    scan.held = text.slice(text.length - hold);
    if (text !== '' || typeof delta.content === 'string') setContent(choice, text.slice(0, text.length - hold));
    if (choice.finish_reason) this.#end(scan);
    return before;
  }

  /** Runs the new content through every stop string's automaton; the first one completed, with the text before it. */
  #scanText(scan: ChoiceScan, prefix: string, content: string): StopMatch | undefined {
    const stops = this.#stops;
    for (let i = 0; i < content.length; i++) {
      const code = content.charCodeAt(i);
      for (let k = 0; k < stops.length; k++) {
        const stop = stops[k]!;
        const state = stop.next(scan.states[k]!, code);
        if (state === stop.text.length) {
          const end = prefix.length + i + 1;
          return { before: (prefix + content).slice(0, end - stop.text.length), stop: stop.text };
        }
        scan.states[k] = state;
      }
    }
    return undefined;
  }

  #end(scan: ChoiceScan): void {
    scan.ended = true;
    scan.held = '';
    this.#ended++;
  }

  #scan(index: number): ChoiceScan {
    let scan = this.#scans.get(index);
    if (scan === undefined) {
      scan = { states: new Int32Array(this.#stops.length), held: '', ended: false };
      this.#scans.set(index, scan);
    }
    return scan;
  }

  #textChunk(index: number, text: string): ChatChunk {
    const envelope = this.#envelope ?? { id: '', object: 'chat.completion.chunk', created: 0, model: '' };
    return { ...envelope, choices: [{ index, delta: { content: text } }] };
  }

  #withHeldUsage(chunk: ChatChunk): ChatChunk {
    if (this.#heldUsage !== undefined && !chunk.usage) chunk.usage = this.#heldUsage;
    this.#heldUsage = undefined;
    return chunk;
  }
}

/**
 * The same rule over a whole answer (a server that answered a body although asked for a stream): each
 * choice's content cut at its first stop string, the choice then ending with `stop` and the string.
 */
export function cutAtStops(completion: ChatCompletion, stops: readonly string[]): void {
  for (const choice of completion.choices) {
    const content = choice.message.content;
    if (!content) continue;
    const matcher = new StopMatcher(stops, 1);
    const chunk: ChatChunk = {
      id: '',
      object: 'chat.completion.chunk',
      created: 0,
      model: '',
      choices: [{ index: 0, delta: { content }, finish_reason: 'stop' }],
    };
    matcher.see(chunk, () => {});
    const cut = chunk.choices[0]!;
    if (cut.stop_reason === undefined) continue;
    choice.message.content = cut.delta.content || null;
    delete choice.message.tool_calls;
    choice.finish_reason = 'stop';
    choice.stop_reason = cut.stop_reason;
  }
}

/** Sets the delta's content, or removes it when empty (no empty text reaches the encoders). */
function setContent(choice: ChatChunkChoice, text: string): void {
  if (text === '') delete choice.delta.content;
  else choice.delta.content = text;
}

/** Nothing left to pass on: no content, reasoning, tool call, finish or logprobs. */
function isEmpty(choice: ChatChunkChoice): boolean {
  const delta = choice.delta;
  return (
    !delta.content &&
    !delta.reasoning_content &&
    !delta.reasoning &&
    !(delta.tool_calls && delta.tool_calls.length > 0) &&
    !choice.finish_reason &&
    !choice.logprobs
  );
}

/** The longest start of a stop string that the content ends with: what must be held back. */
function longest(states: Int32Array): number {
  let most = 0;
  for (const state of states) if (state > most) most = state;
  return most;
}
