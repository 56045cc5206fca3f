// One round of the search loop: one upstream call's chunks, passed on as they stream, except what the
// loop must decide at the round's end. Text passes at once (split after each citation marker, with a
// citation event there); usage is made cumulative over the rounds; with search on, tool calls and the
// finish are held, because a call of the search function is the gateway's to run (the client never
// sees it) and the client's own calls come after the search blocks, as in the final body.
import {
  SEARCH_FUNCTION_NAME,
  type CanonicalEvent,
  type ChatChunk,
  type ChatChunkChoice,
  type ChatDelta,
  type ChatUsage,
  type FinishReason,
} from '../../core/canonical.js';
import { MarkerScanner, type TextPiece } from './markers.js';
import type { SourceBook } from './sources.js';
import { addUsage } from './usage.js';

export interface HeldCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

export interface RoundOptions {
  /** Search is offered: hold tool calls and the finish for the loop. */
  holdCalls: boolean;
  /** The client streams: pass running usage on (else usage only comes in the loop's final chunk). */
  streamed: boolean;
  /** The usage of the rounds before this one. */
  prior: ChatUsage | undefined;
  /** The executed-search count to report beside the usage, when search is offered. */
  searches: () => number | undefined;
}

export class Round {
  readonly #options: RoundOptions;
  readonly #book: SourceBook;
  readonly #scanner = new MarkerScanner();
  readonly #calls = new Map<number, HeldCall>();
  #meta: Pick<ChatChunk, 'id' | 'object' | 'created' | 'model'> | undefined;
  #finish: FinishReason | null = null;
  #stop: string | number | null = null;
  /** The text the model wrote in this round, markers and all (it goes back into the conversation). */
  text = '';
  /** The round's latest usage (upstreams send the total last). */
  usage: ChatUsage | undefined;

  constructor(options: RoundOptions, book: SourceBook) {
    this.#options = options;
    this.#book = book;
  }

  take(chunk: ChatChunk): CanonicalEvent[] {
    this.#meta ??= { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model };
    if (chunk.usage) this.usage = chunk.usage;
    // The usage-only chunk that ends a round: the loop sends one total at its own end.
    const choice = chunk.choices[0];
    if (choice === undefined) return [];
    const usage =
      this.#options.streamed && chunk.usage ? this.#report(addUsage(this.#options.prior, chunk.usage)) : undefined;
    const delta = choice.delta;
    const calls = this.#holdCalls(delta);
    let finish = choice.finish_reason ?? null;
    let stop = choice.stop_reason ?? null;
    if (this.#options.holdCalls) {
      if (finish !== null) this.#finish = finish;
      if (stop !== null) this.#stop = stop;
      finish = null;
      stop = null;
    }
    const content = typeof delta.content === 'string' ? delta.content : '';
    this.text += content;
    const pieces: TextPiece[] =
      content === '' || (!this.#scanner.holding && !content.includes('['))
        ? content === ''
          ? []
          : [{ text: content }]
        : this.#scanner.push(content);
    const head: ChatDelta = {};
    if (delta.role) head.role = delta.role;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) head.reasoning_content = reasoning;
    const tail: Partial<ChatChunkChoice> = {};
    if (calls !== undefined) tail.delta = { tool_calls: calls };
    if (finish !== null) tail.finish_reason = finish;
    if (stop !== null) tail.stop_reason = stop;
    if (pieces.length <= 1 && pieces[0]?.marker === undefined) {
      // One chunk, as it came (less what is held).
      const merged: ChatDelta = { ...head, ...tail.delta };
      if (pieces[0] !== undefined) merged.content = pieces[0].text;
      // A chunk that only carried what is held says nothing.
      if (Object.keys(merged).length === 0 && finish === null && usage === undefined) return [];
      return [this.#chunk({ ...tail, delta: merged }, usage)];
    }
    const out: CanonicalEvent[] = [];
    if (head.role !== undefined || head.reasoning_content !== undefined) out.push(this.#chunk({ delta: head }));
    for (const piece of pieces) out.push(...this.#piece(piece));
    if (tail.delta !== undefined || finish !== null || usage !== undefined)
      out.push(this.#chunk({ delta: {}, ...tail }, usage));
    return out;
  }

  /** The end of the round's chunks: held-back text that turned out not to be a marker. */
  end(): CanonicalEvent[] {
    const held = this.#scanner.flush();
    return held === '' ? [] : [this.#chunk({ delta: { content: held } })];
  }

  /** The model's calls of the search function (the loop runs them). */
  searchCalls(): HeldCall[] {
    return [...this.#calls.values()]
      .filter((call) => call.name === SEARCH_FUNCTION_NAME)
      .sort((a, b) => a.index - b.index);
  }

  clientCalls(): HeldCall[] {
    return [...this.#calls.values()]
      .filter((call) => call.name !== SEARCH_FUNCTION_NAME)
      .sort((a, b) => a.index - b.index);
  }

  /** What was held, at the turn's end: the client's calls (after the search blocks) and the finish. */
  finishEvents(): CanonicalEvent[] {
    if (!this.#options.holdCalls) return [];
    const calls = this.clientCalls();
    const choice: Partial<ChatChunkChoice> = {
      delta: {},
      finish_reason:
        calls.length > 0
          ? 'tool_calls'
          : this.#finish === 'tool_calls' || this.#finish === null
            ? 'stop'
            : this.#finish,
    };
    if (calls.length > 0)
      choice.delta = {
        tool_calls: calls.map((call) => ({
          index: call.index,
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    if (this.#stop !== null) choice.stop_reason = this.#stop;
    return [this.#chunk(choice)];
  }

  /** The usage to report: the running total, and the search count when search is offered. */
  #report(usage: ChatUsage | undefined): ChatUsage | undefined {
    const searches = this.#options.searches();
    return usage === undefined || searches === undefined ? usage : { ...usage, web_search_requests: searches };
  }

  #holdCalls(delta: ChatDelta): ChatDelta['tool_calls'] | undefined {
    const fragments = delta.tool_calls;
    if (!fragments || fragments.length === 0) return undefined;
    if (!this.#options.holdCalls) return fragments;
    for (const fragment of fragments) {
      let call = this.#calls.get(fragment.index);
      if (call === undefined) {
        call = { index: fragment.index, id: '', name: '', arguments: '' };
        this.#calls.set(fragment.index, call);
      }
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name = fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
    }
    return undefined;
  }

  #piece(piece: TextPiece): CanonicalEvent[] {
    const chunk = this.#chunk({ delta: { content: piece.text } });
    const source = piece.marker === undefined ? undefined : this.#book.get(piece.marker.number);
    if (source === undefined || piece.marker === undefined) return [chunk];
    return [chunk, { type: 'citation', marker: piece.marker.text, citation: this.#book.citation(source) }];
  }

  #chunk(choice: Partial<ChatChunkChoice>, usage?: ChatUsage): CanonicalEvent {
    const meta = this.#meta ?? {
      id: 'chatcmpl-search',
      object: 'chat.completion.chunk' as const,
      created: 0,
      model: '',
    };
    const chunk: ChatChunk = { ...meta, choices: [{ index: 0, delta: {}, ...choice }] };
    if (usage !== undefined) chunk.usage = usage;
    return { type: 'chunk', chunk };
  }

  /** The chunk the loop's end sends: the total usage of every round, with the search count. */
  totalChunk(total: ChatUsage): CanonicalEvent {
    const meta = this.#meta ?? {
      id: 'chatcmpl-search',
      object: 'chat.completion.chunk' as const,
      created: 0,
      model: '',
    };
    return { type: 'chunk', chunk: { ...meta, choices: [], usage: this.#report(total)! } };
  }
}
