import type { CanonicalEvent, ChatChunk, ChatToolCallDelta, ChatUsage, FinishReason } from '../../../proxy/canonical.js';
import type { StreamEncoder } from '../../../proxy/dialect.js';
import type { GatewayError } from '../../../proxy/errors.js';
import { sseFrame } from '../../../proxy/sse.js';
import { renderChatError } from '../chat/errors.js';
import { outcomeOf, type Outcome } from './outcome.js';
import { callItemId, fallbackCallId, messageItem, messageItemId, responseId, responseObject, responsesUsage, type ResponseContext } from './response-object.js';
import type { OutputFunctionCall, OutputItem, ResponseStatus } from './types.js';

/** A message item of the stream: open from its first text until a tool call starts or the stream ends. */
interface StreamMessage {
  kind: 'message';
  id: string;
  outputIndex: number;
  text: string;
  status: ResponseStatus;
  /** `…"delta":` for this item's text deltas, serialized once. */
  deltaHead: string;
}

/** A function_call item: open from its first fragment until the stream ends (upstreams may interleave calls). */
interface StreamCall {
  kind: 'function_call';
  id: string;
  outputIndex: number;
  callId: string;
  name: string;
  arguments: string;
  status: ResponseStatus;
}

type StreamItem = StreamMessage | StreamCall;

/**
 * Canonical chunks → the responses event stream (spec 6.3, WIRE.md). Every event is `event: NAME` with
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
  /** Open function calls by the upstream's tool-call index. */
  readonly #calls = new Map<number, StreamCall>();
  #messageCount = 0;
  #sequence = 0;
  #finish: FinishReason | null = null;
  #usage: ChatUsage | null = null;

  constructor(context: ResponseContext) {
    this.#context = context;
    this.#spec = context.wire === 'spec';
  }

  start(): string {
    const response = JSON.stringify(responseObject(this.#context, { status: 'in_progress', output: [], usage: null, outcome: null }));
    const { created, modelId } = this.#context;
    const spec = this.#spec ? `"id":"${responseId(this.#context)}","object":"response","created":${created},"model":${JSON.stringify(modelId)},` : '';
    return this.#frame('response.created', `${spec}"response":${response}`);
  }

  event(event: CanonicalEvent): string {
    switch (event.type) {
      case 'chunk':
        return this.#chunk(event.chunk);
      default:
        return unknownEvent(event.type);
    }
  }

  end(): string {
    const outcome = outcomeOf(this.#finish);
    // A response always has an item (Codex stops with "no last agent message" without one).
    let out = this.#items.length === 0 ? this.#openMessage() : '';
    for (const item of this.#items) {
      if (item.kind === 'message' && item === this.#message) out += this.#closeMessage(item, outcome.status);
      else if (item.kind === 'function_call') out += this.#closeCall(item, outcome.status);
    }
    const type = outcome.status === 'completed' ? 'response.completed' : 'response.incomplete';
    const response = JSON.stringify(responseObject(this.#context, { status: outcome.status, output: this.#items.map(outputItem), usage: responsesUsage(this.#usage), outcome }));
    const spec = this.#spec ? this.#specEnd(type, outcome) : '';
    return out + this.#frame(type, `${spec}"response":${response}`);
  }

  /** OpenAI's `error` event, with the chat-shape `error` object beside its fields: the SDKs raise it as an APIError. */
  error(error: GatewayError): string {
    const body = renderChatError(error).body.error as { message: string; code: string | null; param: string | null };
    const fields = `"code":${JSON.stringify(body.code)},"message":${JSON.stringify(body.message)},"param":${JSON.stringify(body.param)},"error":${JSON.stringify(body)}`;
    return this.#frame('error', fields);
  }

  #chunk(chunk: ChatChunk): string {
    if (chunk.usage) this.#usage = chunk.usage;
    let out = '';
    for (const choice of chunk.choices) {
      // The dialect has one output; `n` is never above 1 here.
      if (choice.index !== 0) continue;
      const { content, tool_calls: fragments } = choice.delta;
      if (typeof content === 'string' && content !== '') out += this.#text(content);
      if (fragments) for (const fragment of fragments) out += this.#toolFragment(fragment);
      if (choice.finish_reason) this.#finish = choice.finish_reason;
    }
    return out;
  }

  #text(text: string): string {
    let out = '';
    if (this.#message === undefined) out += this.#openMessage();
    const message = this.#message!;
    message.text += text;
    const delta = this.#spec ? `{"output_text":${JSON.stringify(text)}}` : JSON.stringify(text);
    return out + this.#frame('response.output_text.delta', `${message.deltaHead}${delta},"logprobs":[]`);
  }

  #openMessage(): string {
    const id = messageItemId(this.#context, this.#messageCount++);
    const outputIndex = this.#items.length;
    const spec = this.#spec ? '"object":"response.delta",' : '';
    const deltaHead = `${spec}"item_id":"${id}","output_index":${outputIndex},"content_index":0,"delta":`;
    const message: StreamMessage = { kind: 'message', id, outputIndex, text: '', status: 'in_progress', deltaHead };
    this.#items.push(message);
    this.#message = message;
    const item = { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] };
    return this.#frame('response.output_item.added', `"output_index":${outputIndex},"item":${JSON.stringify(item)}`)
      + this.#frame('response.content_part.added', `"item_id":"${id}","output_index":${outputIndex},"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`);
  }

  #closeMessage(message: StreamMessage, status: ResponseStatus): string {
    this.#message = undefined;
    message.status = status;
    const item = outputItem(message);
    const head = `"item_id":"${message.id}","output_index":${message.outputIndex},"content_index":0`;
    const text = JSON.stringify(message.text);
    return this.#frame('response.output_text.done', `${head},"text":${text},"logprobs":[]`)
      + this.#frame('response.content_part.done', `${head},"part":{"type":"output_text","text":${text},"annotations":[]}`)
      + this.#frame('response.output_item.done', `"output_index":${message.outputIndex},"item":${JSON.stringify(item)}`);
  }

  #toolFragment(fragment: ChatToolCallDelta): string {
    let out = '';
    let call = this.#calls.get(fragment.index);
    if (call === undefined) {
      // Text before a call is a finished message: its item closes before the call's opens.
      if (this.#message !== undefined) out += this.#closeMessage(this.#message, 'completed');
      const n = this.#calls.size;
      call = { kind: 'function_call', id: callItemId(this.#context, n), outputIndex: this.#items.length, callId: fragment.id || fallbackCallId(this.#context, n), name: fragment.function?.name ?? '', arguments: '', status: 'in_progress' };
      this.#calls.set(fragment.index, call);
      this.#items.push(call);
      out += this.#frame('response.output_item.added', `"output_index":${call.outputIndex},"item":${JSON.stringify(outputItem(call))}`);
    } else if (fragment.function?.name && call.name === '') {
      call.name = fragment.function.name;
    }
    const delta = fragment.function?.arguments;
    if (delta) {
      call.arguments += delta;
      out += this.#frame('response.function_call_arguments.delta', `"item_id":"${call.id}","output_index":${call.outputIndex},"delta":${JSON.stringify(delta)}`);
    }
    return out;
  }

  #closeCall(call: StreamCall, status: ResponseStatus): string {
    call.status = status;
    return this.#frame('response.function_call_arguments.done', `"item_id":"${call.id}","output_index":${call.outputIndex},"name":${JSON.stringify(call.name)},"arguments":${JSON.stringify(call.arguments)}`)
      + this.#frame('response.output_item.done', `"output_index":${call.outputIndex},"item":${JSON.stringify(outputItem(call))}`);
  }

  #specEnd(type: string, outcome: Outcome): string {
    return `"object":"${type}","id":"${responseId(this.#context)}","status":"${outcome.status}","finish_reason":"${outcome.finishReason}",`;
  }

  /** One event: `event: TYPE`, data `{"type":TYPE, …fields, "sequence_number":n}`. */
  #frame(type: string, fields: string): string {
    return sseFrame(type, `{"type":"${type}",${fields},"sequence_number":${this.#sequence++}}`);
  }
}

function outputItem(item: StreamItem): OutputItem {
  if (item.kind === 'message') return messageItem(item.id, item.text, item.status);
  const call: OutputFunctionCall = { type: 'function_call', id: item.id, call_id: item.callId, name: item.name, arguments: item.arguments, status: item.status };
  return call;
}

/** A new canonical event type is a compile error here until the encoder handles it. */
function unknownEvent(_type: never): string {
  return '';
}
