import type {
  CanonicalEvent,
  ChatChunk,
  ChatChunkChoice,
  ChatToolCallDelta,
  ChatUsage,
  CitationEvent,
  FinishReason,
  SearchCallEvent,
  SearchResultEvent,
} from '../../core/canonical.js';
import type { FrameSink, StreamEncoder } from '../../core/dialect.js';
import type { GatewayError } from '../../core/errors.js';
import { clientToolCallId, TOOL_USE_PREFIX } from '../../core/tool-call-ids.js';
import { renderMessagesError } from './errors.js';
import { stopReason } from './stop-reason.js';
import { messagesUsage } from './usage.js';
import { searchResultBlock, serverToolUseBlock } from './web-search-blocks.js';

export interface MessagesStreamOptions {
  id: string;
  modelId: string;
  stopSequences: readonly string[];
  /** The signature of a thinking block's text, sent as its closing `signature_delta`. */
  sign: (thinking: string) => string;
}

/** The one content block open in the output; upstream interleaving never opens a second. */
type OpenBlock =
  | { kind: 'none' }
  | { kind: 'text'; index: number }
  | { kind: 'thinking'; index: number }
  | { kind: 'tool'; index: number; call: number };

/** A tool call as the upstream streams it, keyed on its index; `args` holds what is not sent yet. */
interface ToolCall {
  /** The upstream's id ('' while it sent none); the client sees it in the dialect's form (core/tool-call-ids.ts). */
  id: string;
  name: string;
  args: string;
  /** Every argument fragment so far, to tell whether the call looks complete. */
  all: string;
}

/**
 * Canonical chunks → message-dialect SSE: message_start, content blocks (start, deltas, stop) with
 * contiguous indices, message_delta with the stop_reason and cumulative usage, message_stop.
 * Tool calls stream live one at a time; a call whose fragments arrive while another is still
 * incomplete waits and is sent when its turn comes (or at the end), so no argument is ever lost.
 */
export class MessagesStreamEncoder implements StreamEncoder {
  readonly #options: MessagesStreamOptions;
  #started = false;
  #nextIndex = 0;
  #open: OpenBlock = { kind: 'none' };
  /** The open thinking block's text so far: what its signature covers. */
  #thinking = '';
  readonly #calls = new Map<number, ToolCall>();
  /** Calls seen but not yet given a block, in arrival order. */
  readonly #waiting: number[] = [];
  #calledTool = false;
  /** A citation ended the open text block's claim: the next text starts a new block (as the body splits it). */
  #splitText = false;
  #finish: FinishReason | null = null;
  #matched: string | number | null = null;
  #usage: ChatUsage | null = null;

  constructor(options: MessagesStreamOptions) {
    this.#options = options;
  }

  start(): void {}

  event(event: CanonicalEvent, out: FrameSink): void {
    switch (event.type) {
      case 'chunk':
        return this.#chunk(event.chunk, out);
      case 'search_call':
        return this.#searchCall(event, out);
      case 'search_result':
        return this.#searchResult(event, out);
      case 'citation':
        return this.#citation(event, out);
      default:
        return unknownEvent(event);
    }
  }

  end(out: FrameSink): void {
    this.#ensureStarted(out);
    this.#close(out);
    for (const call of this.#waiting.splice(0)) {
      this.#openTool(call, out);
      this.#close(out);
    }
    const stop = stopReason(this.#finish, this.#calledTool, this.#matched, this.#options.stopSequences);
    frame(out, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop.reason, stop_sequence: stop.sequence },
      usage: messagesUsage(this.#usage),
    });
    frame(out, 'message_stop', { type: 'message_stop' });
  }

  error(error: GatewayError, out: FrameSink): void {
    frame(out, 'error', renderMessagesError(error).body);
  }

  ping(out: FrameSink): void {
    frame(out, 'ping', { type: 'ping' });
  }

  /** message_start, once, before any other frame of the message. */
  #ensureStarted(out: FrameSink): void {
    if (this.#started) return;
    this.#started = true;
    const usage = messagesUsage(this.#usage);
    usage.output_tokens = 0;
    const message = {
      id: this.#options.id,
      type: 'message',
      role: 'assistant',
      model: this.#options.modelId,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    frame(out, 'message_start', { type: 'message_start', message });
  }

  #chunk(chunk: ChatChunk, out: FrameSink): void {
    if (chunk.usage) this.#usage = chunk.usage;
    // message_start waits for a chunk with usage or output: llama-server's role chunk may carry neither,
    // and its running usage comes with the next one (the prompt's real count, not 0).
    if (!this.#started && !chunk.usage && !carriesOutput(chunk)) return;
    this.#ensureStarted(out);
    const choice = chunk.choices[0];
    if (choice !== undefined) this.#choice(choice, out);
  }

  /** A server_tool_use block, whole: start with `input: {}`, the query as one input_json_delta, stop. */
  #searchCall(event: SearchCallEvent, out: FrameSink): void {
    this.#ensureStarted(out);
    this.#close(out);
    const index = this.#nextIndex++;
    frame(out, 'content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { ...serverToolUseBlock(event.id, event.query), input: {} },
    });
    frame(out, 'content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify({ query: event.query }) },
    });
    frame(out, 'content_block_stop', { type: 'content_block_stop', index });
  }

  /** A web_search_tool_result block: its start carries the whole block (docs/wire.md), then it stops. */
  #searchResult(event: SearchResultEvent, out: FrameSink): void {
    this.#ensureStarted(out);
    this.#close(out);
    const index = this.#nextIndex++;
    frame(out, 'content_block_start', {
      type: 'content_block_start',
      index,
      content_block: searchResultBlock(event),
    });
    frame(out, 'content_block_stop', { type: 'content_block_stop', index });
  }

  /** A citation of the text just written: a citations_delta on its block, which then ends at the next text. */
  #citation(event: CitationEvent, out: FrameSink): void {
    if (this.#open.kind !== 'text') return;
    this.#splitText = true;
    this.#delta(out, {
      type: 'citations_delta',
      citation: { type: 'web_search_result_location', ...event.citation },
    });
  }

  #choice(choice: ChatChunkChoice, out: FrameSink): void {
    const delta = choice.delta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) {
      this.#ensure('thinking', out);
      this.#delta(out, { type: 'thinking_delta', thinking: reasoning });
      this.#thinking += reasoning;
    }
    if (delta.content) {
      this.#ensure('text', out);
      this.#delta(out, { type: 'text_delta', text: delta.content });
    }
    for (const fragment of delta.tool_calls ?? []) this.#toolFragment(fragment, out);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    if (choice.stop_reason !== undefined && choice.stop_reason !== null) this.#matched = choice.stop_reason;
  }

  #toolFragment(fragment: ChatToolCallDelta, out: FrameSink): void {
    let call = this.#calls.get(fragment.index);
    if (call === undefined) {
      call = {
        id: fragment.id ?? '',
        name: fragment.function?.name ?? '',
        args: '',
        all: '',
      };
      this.#calls.set(fragment.index, call);
      this.#waiting.push(fragment.index);
    } else if (this.#waiting.includes(fragment.index)) {
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name = fragment.function.name;
    }
    const args = fragment.function?.arguments ?? '';
    call.args += args;
    call.all += args;
    const open = this.#open;
    if (open.kind === 'tool' && open.call === fragment.index) return this.#flushArgs(call, out);
    // Another call is live: switch only once its arguments look complete, so a late fragment of it never finds its block closed.
    if (open.kind === 'tool' && !looksComplete(this.#calls.get(open.call)!.all)) return;
    const next = this.#waiting.shift();
    if (next === undefined) return;
    this.#close(out);
    this.#openTool(next, out);
  }

  #openTool(upstreamIndex: number, out: FrameSink): void {
    const call = this.#calls.get(upstreamIndex)!;
    this.#calledTool = true;
    const index = this.#nextIndex++;
    this.#open = { kind: 'tool', index, call: upstreamIndex };
    frame(out, 'content_block_start', {
      type: 'content_block_start',
      index,
      content_block: {
        type: 'tool_use',
        id: clientToolCallId(TOOL_USE_PREFIX, call.id, `${this.#options.id}_${upstreamIndex}`),
        name: call.name,
        input: {},
      },
    });
    this.#flushArgs(call, out);
  }

  #flushArgs(call: ToolCall, out: FrameSink): void {
    if (call.args === '') return;
    const partial = call.args;
    call.args = '';
    this.#delta(out, { type: 'input_json_delta', partial_json: partial });
  }

  /** Makes a text or thinking block the open one. */
  #ensure(kind: 'text' | 'thinking', out: FrameSink): void {
    if (this.#open.kind === kind && !(kind === 'text' && this.#splitText)) return;
    this.#splitText = false;
    this.#close(out);
    const index = this.#nextIndex++;
    this.#open = { kind, index };
    const block = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
    frame(out, 'content_block_start', { type: 'content_block_start', index, content_block: block });
  }

  /** Stops the open block; a thinking block first gets its signature (Anthropic's `signature_delta`). */
  #close(out: FrameSink): void {
    const open = this.#open;
    if (open.kind === 'none') return;
    if (open.kind === 'thinking') {
      this.#delta(out, { type: 'signature_delta', signature: this.#options.sign(this.#thinking) });
      this.#thinking = '';
    }
    this.#open = { kind: 'none' };
    frame(out, 'content_block_stop', { type: 'content_block_stop', index: open.index });
  }

  #delta(out: FrameSink, delta: object): void {
    const open = this.#open;
    if (open.kind === 'none') throw new Error('a delta needs an open block');
    frame(out, 'content_block_delta', { type: 'content_block_delta', index: open.index, delta });
  }
}

/** Whether the chunk has anything the message shows: text, thinking, a tool call, or its end. */
function carriesOutput(chunk: ChatChunk): boolean {
  return chunk.choices.some(
    ({ delta, finish_reason: finish }) =>
      Boolean(delta.content || delta.reasoning_content || delta.reasoning || finish) ||
      (delta.tool_calls?.length ?? 0) > 0,
  );
}

/** A new canonical event type is a compile error here until the encoder handles it. */
function unknownEvent(_event: never): void {}

function frame(out: FrameSink, event: string, data: object): void {
  out.frame(event, JSON.stringify(data));
}

/** Whether a tool call's arguments so far are a whole JSON value (the call has most likely ended). */
function looksComplete(args: string): boolean {
  if (args.trim() === '') return false;
  try {
    JSON.parse(args);
    return true;
  } catch {
    return false;
  }
}
