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
} from '../../proxy/canonical.js';
import type { StreamEncoder } from '../../proxy/dialect.js';
import type { GatewayError } from '../../proxy/errors.js';
import { sseFrame } from '../../proxy/sse.js';
import { clientToolCallId, TOOL_USE_PREFIX } from '../../proxy/tool-call-ids.js';
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
  /** The upstream's id ('' while it sent none); the client sees it in the dialect's form (proxy/tool-call-ids.ts). */
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

  start(): string {
    return '';
  }

  event(event: CanonicalEvent): string {
    switch (event.type) {
      case 'chunk':
        return this.#chunk(event.chunk);
      case 'search_call':
        return this.#searchCall(event);
      case 'search_result':
        return this.#searchResult(event);
      case 'citation':
        return this.#citation(event);
      default:
        return unknownEvent(event);
    }
  }

  end(): string {
    let out = (this.#started ? '' : this.#messageStart()) + this.#close();
    for (const call of this.#waiting.splice(0)) out += this.#openTool(call) + this.#close();
    const stop = stopReason(this.#finish, this.#calledTool, this.#matched, this.#options.stopSequences);
    out += frame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop.reason, stop_sequence: stop.sequence },
      usage: messagesUsage(this.#usage),
    });
    return out + frame('message_stop', { type: 'message_stop' });
  }

  error(error: GatewayError): string {
    return frame('error', renderMessagesError(error).body);
  }

  ping(): string {
    return frame('ping', { type: 'ping' });
  }

  #messageStart(): string {
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
    return frame('message_start', { type: 'message_start', message });
  }

  #chunk(chunk: ChatChunk): string {
    if (chunk.usage) this.#usage = chunk.usage;
    // message_start waits for a chunk with usage or output: llama-server's role chunk may carry neither,
    // and its running usage comes with the next one (the prompt's real count, not 0).
    if (!this.#started && !chunk.usage && !carriesOutput(chunk)) return '';
    let out = this.#started ? '' : this.#messageStart();
    const choice = chunk.choices[0];
    if (choice !== undefined) out += this.#choice(choice);
    return out;
  }

  /** A server_tool_use block, whole: start with `input: {}`, the query as one input_json_delta, stop. */
  #searchCall(event: SearchCallEvent): string {
    let out = (this.#started ? '' : this.#messageStart()) + this.#close();
    const index = this.#nextIndex++;
    out += frame('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { ...serverToolUseBlock(event.id, event.query), input: {} },
    });
    out += frame('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify({ query: event.query }) },
    });
    return out + frame('content_block_stop', { type: 'content_block_stop', index });
  }

  /** A web_search_tool_result block: its start carries the whole block (docs/wire.md), then it stops. */
  #searchResult(event: SearchResultEvent): string {
    let out = (this.#started ? '' : this.#messageStart()) + this.#close();
    const index = this.#nextIndex++;
    out += frame('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: searchResultBlock(event),
    });
    return out + frame('content_block_stop', { type: 'content_block_stop', index });
  }

  /** A citation of the text just written: a citations_delta on its block, which then ends at the next text. */
  #citation(event: CitationEvent): string {
    if (this.#open.kind !== 'text') return '';
    this.#splitText = true;
    return this.#delta({
      type: 'citations_delta',
      citation: { type: 'web_search_result_location', ...event.citation },
    });
  }

  #choice(choice: ChatChunkChoice): string {
    const delta = choice.delta;
    let out = '';
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) {
      out += this.#ensure('thinking') + this.#delta({ type: 'thinking_delta', thinking: reasoning });
      this.#thinking += reasoning;
    }
    if (delta.content) out += this.#ensure('text') + this.#delta({ type: 'text_delta', text: delta.content });
    for (const fragment of delta.tool_calls ?? []) out += this.#toolFragment(fragment);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    if (choice.stop_reason !== undefined && choice.stop_reason !== null) this.#matched = choice.stop_reason;
    return out;
  }

  #toolFragment(fragment: ChatToolCallDelta): string {
    let out = '';
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
    if (open.kind === 'tool' && open.call === fragment.index) return out + this.#flushArgs(call);
    // Another call is live: switch only once its arguments look complete, so a late fragment of it never finds its block closed.
    if (open.kind === 'tool' && !looksComplete(this.#calls.get(open.call)!.all)) return out;
    const next = this.#waiting.shift();
    if (next !== undefined) out += this.#close() + this.#openTool(next);
    return out;
  }

  #openTool(upstreamIndex: number): string {
    const call = this.#calls.get(upstreamIndex)!;
    this.#calledTool = true;
    const index = this.#nextIndex++;
    this.#open = { kind: 'tool', index, call: upstreamIndex };
    const start = frame('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: {
        type: 'tool_use',
        id: clientToolCallId(TOOL_USE_PREFIX, call.id, `${this.#options.id}_${upstreamIndex}`),
        name: call.name,
        input: {},
      },
    });
    return start + this.#flushArgs(call);
  }

  #flushArgs(call: ToolCall): string {
    if (call.args === '') return '';
    const partial = call.args;
    call.args = '';
    return this.#delta({ type: 'input_json_delta', partial_json: partial });
  }

  /** Makes a text or thinking block the open one. */
  #ensure(kind: 'text' | 'thinking'): string {
    if (this.#open.kind === kind && !(kind === 'text' && this.#splitText)) return '';
    this.#splitText = false;
    const out = this.#close();
    const index = this.#nextIndex++;
    this.#open = { kind, index };
    const block = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
    return out + frame('content_block_start', { type: 'content_block_start', index, content_block: block });
  }

  /** Stops the open block; a thinking block first gets its signature (Anthropic's `signature_delta`). */
  #close(): string {
    const open = this.#open;
    if (open.kind === 'none') return '';
    let out = '';
    if (open.kind === 'thinking') {
      out = this.#delta({ type: 'signature_delta', signature: this.#options.sign(this.#thinking) });
      this.#thinking = '';
    }
    this.#open = { kind: 'none' };
    return out + frame('content_block_stop', { type: 'content_block_stop', index: open.index });
  }

  #delta(delta: object): string {
    const open = this.#open;
    if (open.kind === 'none') throw new Error('a delta needs an open block');
    return frame('content_block_delta', { type: 'content_block_delta', index: open.index, delta });
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
function unknownEvent(_event: never): string {
  return '';
}

function frame(event: string, data: object): string {
  return sseFrame(event, JSON.stringify(data));
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
