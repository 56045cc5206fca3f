import type {
  CanonicalEvent,
  ChatChunk,
  ChatToolCallDelta,
  ChatUsage,
  CitationEvent,
  FinishReason,
  JsonObject,
  SearchCallEvent,
  SearchResultEvent,
} from '../../core/canonical.js';
import type { FrameSink, StreamEncoder } from '../../core/dialect.js';
import type { GatewayError } from '../../core/errors.js';
import { codexRateLimitsEvent } from './codex-rate-limits.js';
import { renderChatError } from '../chat/errors.js';
import { callItem } from './call-items.js';
import { compactionItem } from './compaction.js';
import type { ClientTool } from './client-tools.js';
import { outcomeOf, type ResponseOutcome } from './outcome.js';
import { reasoningItem, reasoningItemId } from './reasoning.js';
import {
  callItemId,
  codePoints,
  clientCallId,
  messageItem,
  messageItemId,
  responseId,
  responseObject,
  responsesUsage,
  searchItemId,
  urlCitation,
  type ResponseContext,
} from './response-object.js';
import type { OutputItem, OutputWebSearchCall, ResponseStatus } from './types.js';

/** A message item of the stream: open from its first text until a tool call starts or the stream ends. */
interface StreamMessage {
  kind: 'message';
  id: string;
  outputIndex: number;
  text: string;
  status: ResponseStatus;
  /** `…"delta":` for this item's text deltas, serialized once. */
  deltaHead: string;
  /** The text's length in code points (annotation indices count them). */
  length: number;
  annotations: JsonObject[];
}

/**
 * A call item (`function_call`, or a client tool's own: call-items.ts): open from its first fragment until the
 * stream ends (upstreams may interleave calls).
 */
interface StreamCall {
  kind: 'call';
  /** The client's tool the name maps to; undefined for a plain function tool. */
  tool: ClientTool | undefined;
  id: string;
  outputIndex: number;
  callId: string;
  name: string;
  arguments: string;
  status: ResponseStatus;
}

/** A web_search_call item: added when the search starts, done when its result is in. */
interface StreamSearch {
  kind: 'web_search_call';
  id: string;
  outputIndex: number;
  query: string;
  status: OutputWebSearchCall['status'];
}

/** A reasoning item: open from the model's first reasoning until anything else starts. */
interface StreamReasoning {
  kind: 'reasoning';
  id: string;
  outputIndex: number;
  text: string;
}

/** The answer to a compaction request (compaction.ts): one item, added and done at the end, when the summary is whole. */
interface StreamCompaction {
  kind: 'compaction';
  id: string;
  outputIndex: number;
  encryptedContent: string;
}

type StreamItem = StreamMessage | StreamCall | StreamSearch | StreamReasoning | StreamCompaction;

/**
 * Canonical chunks → the responses event stream (spec 6.3, docs/wire.md). Every event is `event: NAME` with
 * `data.type` = NAME and a rising `sequence_number`: `response.created`; per item `response.output_item.added`
 * (a message also `response.content_part.added`), its deltas (`response.output_text.delta`,
 * `response.function_call_arguments.delta`), then its `*.done` events; finally `response.completed` (or
 * `response.incomplete` when max tokens cut the answer) with the whole response. Profile `spec` adds the spec's
 * fields and sends `delta: {output_text}`; profile `openai` sends OpenAI's events exactly (`delta` a string).
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  readonly #context: ResponseContext;
  readonly #spec: boolean;
  /** The items in output_index order. */
  readonly #items: StreamItem[] = [];
  /** The message item receiving text, if one is open. */
  #message: StreamMessage | undefined;
  /** The reasoning item receiving reasoning, if one is open. */
  #reasoning: StreamReasoning | undefined;
  #reasoningCount = 0;
  /** Open function calls by the upstream's tool-call index. */
  readonly #calls = new Map<number, StreamCall>();
  /** Search items by canonical search id. */
  readonly #searches = new Map<string, StreamSearch>();
  #messageCount = 0;
  #sequence = 0;
  #warmUp = false;
  #finish: FinishReason | null = null;
  #usage: ChatUsage | null = null;
  /** A compaction request's summary so far (the text, which goes out as no message); undefined for other requests. */
  #summary: string | undefined;

  constructor(context: ResponseContext) {
    this.#context = context;
    this.#spec = context.wire === 'spec';
    if (context.compaction === true) this.#summary = '';
  }

  start(out: FrameSink): void {
    const response = JSON.stringify(
      responseObject(this.#context, { status: 'in_progress', output: [], usage: null, outcome: null }),
    );
    const { created, modelId } = this.#context;
    const spec = this.#spec
      ? `"id":"${responseId(this.#context)}","object":"response","created":${created},"model":${JSON.stringify(modelId)},`
      : '';
    const limits = this.#context.codexRateLimits;
    if (limits !== undefined) out.frame('codex.rate_limits', codexRateLimitsEvent(limits));
    this.#frame(out, 'response.created', `${spec}"response":${response}`);
  }

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

  /**
   * A warm-up (WebSocket mode, `generate: false`): created, then completed with no output, as OpenAI answers
   * it; an item here would be one the client never puts in its history, so its next request could not
   * continue this response (Codex then sends its whole input again).
   */
  warmUp(out: FrameSink): void {
    this.#warmUp = true;
    this.start(out);
    this.end(out);
  }

  end(out: FrameSink): void {
    const outcome = outcomeOf(this.#finish);
    if (this.#reasoning !== undefined) this.#closeReasoning(this.#reasoning, out);
    if (this.#summary !== undefined && !this.#warmUp) this.#compaction(this.#summary, out);
    // A generated response always has an item besides reasoning (Codex stops with "no last agent message"
    // without one); a warm-up has none.
    if (!this.#warmUp && this.#items.every((item) => item.kind === 'reasoning')) this.#openMessage(out);
    for (const item of this.#items) {
      if (item.kind === 'message' && item === this.#message) this.#closeMessage(item, outcome.status, out);
      else if (item.kind === 'call') this.#closeCall(item, outcome.status, out);
      else if (item.kind === 'web_search_call' && item.status === 'searching')
        this.#closeSearch(item, 'completed', out);
    }
    const type = outcome.status === 'completed' ? 'response.completed' : 'response.incomplete';
    const response = JSON.stringify(
      responseObject(this.#context, {
        status: outcome.status,
        output: this.#items.map((item) => outputItem(item)),
        usage: responsesUsage(this.#usage),
        outcome,
      }),
    );
    const spec = this.#spec ? this.#specEnd(type, outcome) : '';
    this.#frame(out, type, `${spec}"response":${response}`);
  }

  /**
   * OpenAI's `error` event, with the chat-shape `error` object beside its fields: the SDKs raise it as an APIError.
   * Then `response.failed`, the terminal event of the Open Responses lifecycle (Codex reads its error): the response
   * as far as it came, its open items `incomplete`.
   */
  error(error: GatewayError, out: FrameSink): void {
    const body = renderChatError(error).body.error as { message: string; code: string | null; param: string | null };
    const fields = `"code":${JSON.stringify(body.code)},"message":${JSON.stringify(body.message)},"param":${JSON.stringify(body.param)},"error":${JSON.stringify(body)}`;
    const response = JSON.stringify(
      responseObject(this.#context, {
        status: 'failed',
        output: this.#items.map((item) => outputItem(item, true)),
        usage: responsesUsage(this.#usage),
        outcome: null,
        error: { code: body.code ?? 'server_error', message: body.message },
      }),
    );
    this.#frame(out, 'error', fields);
    this.#frame(out, 'response.failed', `"response":${response}`);
  }

  #chunk(chunk: ChatChunk, out: FrameSink): void {
    if (chunk.usage) this.#usage = chunk.usage;
    for (const choice of chunk.choices) {
      // The dialect has one output; `n` is never above 1 here.
      if (choice.index !== 0) continue;
      const { content, tool_calls: fragments } = choice.delta;
      const reasoning = choice.delta.reasoning_content ?? choice.delta.reasoning;
      if (reasoning) this.#reasoningText(reasoning, out);
      if (typeof content === 'string' && content !== '') this.#text(content, out);
      // A compaction request offers the model no tools (compaction.ts), so a call there is not the client's to run.
      if (fragments && this.#summary === undefined) for (const fragment of fragments) this.#toolFragment(fragment, out);
      if (choice.finish_reason) this.#finish = choice.finish_reason;
    }
  }

  #text(text: string, out: FrameSink): void {
    if (this.#reasoning !== undefined) this.#closeReasoning(this.#reasoning, out);
    if (this.#summary !== undefined) {
      this.#summary += text;
      return;
    }
    if (this.#message === undefined) this.#openMessage(out);
    const message = this.#message!;
    message.text += text;
    message.length += codePoints(text);
    const delta = this.#spec ? `{"output_text":${JSON.stringify(text)}}` : JSON.stringify(text);
    this.#frame(out, 'response.output_text.delta', `${message.deltaHead}${delta},"logprobs":[]`);
  }

  #openMessage(out: FrameSink): void {
    const id = messageItemId(this.#context, this.#messageCount++);
    const outputIndex = this.#items.length;
    const spec = this.#spec ? '"object":"response.delta",' : '';
    const deltaHead = `${spec}"item_id":"${id}","output_index":${outputIndex},"content_index":0,"delta":`;
    const message: StreamMessage = {
      kind: 'message',
      id,
      outputIndex,
      text: '',
      status: 'in_progress',
      deltaHead,
      length: 0,
      annotations: [],
    };
    this.#items.push(message);
    this.#message = message;
    const item = { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] };
    this.#frame(out, 'response.output_item.added', `"output_index":${outputIndex},"item":${JSON.stringify(item)}`);
    this.#frame(
      out,
      'response.content_part.added',
      `"item_id":"${id}","output_index":${outputIndex},"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`,
    );
  }

  #closeMessage(message: StreamMessage, status: ResponseStatus, out: FrameSink): void {
    this.#message = undefined;
    message.status = status;
    const item = outputItem(message);
    const head = `"item_id":"${message.id}","output_index":${message.outputIndex},"content_index":0`;
    const text = JSON.stringify(message.text);
    const annotations = JSON.stringify(message.annotations);
    this.#frame(out, 'response.output_text.done', `${head},"text":${text},"logprobs":[]`);
    this.#frame(
      out,
      'response.content_part.done',
      `${head},"part":{"type":"output_text","text":${text},"annotations":${annotations}}`,
    );
    this.#frame(
      out,
      'response.output_item.done',
      `"output_index":${message.outputIndex},"item":${JSON.stringify(item)}`,
    );
  }

  /** A search starts: the message or reasoning before it is finished; its item is added, in progress, then searching. */
  #searchCall(event: SearchCallEvent, out: FrameSink): void {
    if (this.#message !== undefined) this.#closeMessage(this.#message, 'completed', out);
    if (this.#reasoning !== undefined) this.#closeReasoning(this.#reasoning, out);
    const search: StreamSearch = {
      kind: 'web_search_call',
      id: searchItemId(event.id),
      outputIndex: this.#items.length,
      query: event.query,
      status: 'in_progress',
    };
    this.#items.push(search);
    this.#searches.set(event.id, search);
    const head = `"item_id":"${search.id}","output_index":${search.outputIndex}`;
    this.#frame(
      out,
      'response.output_item.added',
      `"output_index":${search.outputIndex},"item":${JSON.stringify(outputItem(search))}`,
    );
    this.#frame(out, 'response.web_search_call.in_progress', head);
    search.status = 'searching';
    this.#frame(out, 'response.web_search_call.searching', head);
  }

  #searchResult(event: SearchResultEvent, out: FrameSink): void {
    const search = this.#searches.get(event.id);
    if (search === undefined || search.status !== 'searching') return;
    this.#closeSearch(search, event.error_code === undefined ? 'completed' : 'failed', out);
  }

  #closeSearch(search: StreamSearch, status: 'completed' | 'failed', out: FrameSink): void {
    search.status = status;
    this.#frame(
      out,
      'response.web_search_call.completed',
      `"item_id":"${search.id}","output_index":${search.outputIndex}`,
    );
    this.#frame(
      out,
      'response.output_item.done',
      `"output_index":${search.outputIndex},"item":${JSON.stringify(outputItem(search))}`,
    );
  }

  /** A `url_citation` on the marker that ends the open message's text. */
  #citation(event: CitationEvent, out: FrameSink): void {
    const message = this.#message;
    if (message === undefined) return;
    const annotation = urlCitation(message.length, event.marker, event.citation.url, event.citation.title);
    const index = message.annotations.push(annotation) - 1;
    this.#frame(
      out,
      'response.output_text.annotation.added',
      `"item_id":"${message.id}","output_index":${message.outputIndex},"content_index":0,"annotation_index":${index},"annotation":${JSON.stringify(annotation)}`,
    );
  }

  #toolFragment(fragment: ChatToolCallDelta, out: FrameSink): void {
    let call = this.#calls.get(fragment.index);
    if (call === undefined) {
      // Text or reasoning before a call is finished: its item closes before the call's opens.
      if (this.#message !== undefined) this.#closeMessage(this.#message, 'completed', out);
      if (this.#reasoning !== undefined) this.#closeReasoning(this.#reasoning, out);
      const n = this.#calls.size;
      const name = fragment.function?.name ?? '';
      call = {
        kind: 'call',
        tool: this.#context.tools?.get(name),
        id: callItemId(this.#context, n),
        outputIndex: this.#items.length,
        callId: clientCallId(this.#context, fragment.id, n),
        name,
        arguments: '',
        status: 'in_progress',
      };
      this.#calls.set(fragment.index, call);
      this.#items.push(call);
      this.#frame(
        out,
        'response.output_item.added',
        `"output_index":${call.outputIndex},"item":${JSON.stringify(outputItem(call))}`,
      );
    } else if (fragment.function?.name && call.name === '') {
      call.name = fragment.function.name;
      call.tool = this.#context.tools?.get(call.name);
    }
    const delta = fragment.function?.arguments;
    if (delta) {
      call.arguments += delta;
      // A custom tool's input and a shell action are known only once the JSON arguments are whole (#closeCall).
      if (call.tool === undefined || call.tool.kind === 'function')
        this.#frame(
          out,
          'response.function_call_arguments.delta',
          `"item_id":"${call.id}","output_index":${call.outputIndex},"delta":${JSON.stringify(delta)}`,
        );
    }
  }

  /** A call's `*.done` events as OpenAI sends them for its tool type, then `response.output_item.done`. */
  #closeCall(call: StreamCall, status: ResponseStatus, out: FrameSink): void {
    call.status = status;
    const item = callItem(call.tool, call);
    const head = `"item_id":"${call.id}","output_index":${call.outputIndex}`;
    if (item.type === 'function_call')
      this.#frame(
        out,
        'response.function_call_arguments.done',
        `${head},"name":${JSON.stringify(item.name)},"arguments":${JSON.stringify(item.arguments)}`,
      );
    else if (item.type === 'custom_tool_call') {
      const input = JSON.stringify(item.input);
      this.#frame(out, 'response.custom_tool_call_input.delta', `${head},"delta":${input}`);
      this.#frame(out, 'response.custom_tool_call_input.done', `${head},"input":${input}`);
    }
    this.#frame(out, 'response.output_item.done', `"output_index":${call.outputIndex},"item":${JSON.stringify(item)}`);
  }

  /**
   * Reasoning text: its item (and its one `reasoning_text` part) opens first, closing a message before it; the
   * deltas are OpenAI's `response.reasoning_text.delta` in both profiles (the Open Responses schema's
   * `response.reasoning.delta` is not among the events openai's `responses.stream()` accepts).
   */
  #reasoningText(text: string, out: FrameSink): void {
    let reasoning = this.#reasoning;
    if (reasoning === undefined) {
      if (this.#message !== undefined) this.#closeMessage(this.#message, 'completed', out);
      reasoning = {
        kind: 'reasoning',
        id: reasoningItemId(this.#context, this.#reasoningCount++),
        outputIndex: this.#items.length,
        text: '',
      };
      this.#items.push(reasoning);
      this.#reasoning = reasoning;
      const item = { type: 'reasoning', id: reasoning.id, summary: [], content: [] };
      this.#frame(
        out,
        'response.output_item.added',
        `"output_index":${reasoning.outputIndex},"item":${JSON.stringify(item)}`,
      );
      this.#frame(
        out,
        'response.content_part.added',
        `"item_id":"${reasoning.id}","output_index":${reasoning.outputIndex},"content_index":0,"part":{"type":"reasoning_text","text":""}`,
      );
    }
    reasoning.text += text;
    this.#frame(
      out,
      'response.reasoning_text.delta',
      `"item_id":"${reasoning.id}","output_index":${reasoning.outputIndex},"content_index":0,"delta":${JSON.stringify(text)}`,
    );
  }

  #closeReasoning(reasoning: StreamReasoning, out: FrameSink): void {
    this.#reasoning = undefined;
    const head = `"item_id":"${reasoning.id}","output_index":${reasoning.outputIndex},"content_index":0`;
    const text = JSON.stringify(reasoning.text);
    this.#frame(out, 'response.reasoning_text.done', `${head},"text":${text}`);
    this.#frame(out, 'response.content_part.done', `${head},"part":{"type":"reasoning_text","text":${text}}`);
    this.#frame(
      out,
      'response.output_item.done',
      `"output_index":${reasoning.outputIndex},"item":${JSON.stringify(outputItem(reasoning))}`,
    );
  }

  /** The compaction item, added and done: Codex takes the one `compaction` item of the response's done items. */
  #compaction(summary: string, out: FrameSink): void {
    const { id, encrypted_content: encryptedContent } = compactionItem(this.#context, summary);
    const compaction: StreamCompaction = { kind: 'compaction', id, outputIndex: this.#items.length, encryptedContent };
    this.#items.push(compaction);
    const fields = `"output_index":${compaction.outputIndex},"item":${JSON.stringify(outputItem(compaction))}`;
    this.#frame(out, 'response.output_item.added', fields);
    this.#frame(out, 'response.output_item.done', fields);
  }

  #specEnd(type: string, outcome: ResponseOutcome): string {
    return `"object":"${type}","id":"${responseId(this.#context)}","status":"${outcome.status}","finish_reason":"${outcome.finishReason}",`;
  }

  /** One event: `TYPE`, data `{"type":TYPE, …fields, "sequence_number":n}`. */
  #frame(out: FrameSink, type: string, fields: string): void {
    out.frame(type, `{"type":"${type}",${fields},"sequence_number":${this.#sequence++}}`);
  }
}

/** An item as it stands; `failed`: the stream broke off, so an unfinished item is `incomplete` (a search `failed`). */
function outputItem(item: StreamItem, failed = false): OutputItem {
  if (item.kind === 'reasoning') return reasoningItem(item.id, item.text);
  if (item.kind === 'compaction') return { type: 'compaction', id: item.id, encrypted_content: item.encryptedContent };
  const cut = failed && (item.status === 'in_progress' || item.status === 'searching');
  if (item.kind === 'web_search_call') {
    const status = cut ? 'failed' : item.status;
    return { type: 'web_search_call', id: item.id, status, action: { type: 'search', query: item.query } };
  }
  const status = cut ? 'incomplete' : item.status;
  if (item.kind === 'message') return messageItem(item.id, item.text, status, item.annotations);
  return callItem(item.tool, { ...item, status });
}

/** A new canonical event type is a compile error here until the encoder handles it. */
function unknownEvent(_event: never): void {}
