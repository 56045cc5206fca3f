import fastJson from 'fast-json-stringify';
import type { CanonicalEvent, ChatChunkChoice, ChatDelta, ChatUsage, FinishReason } from '../../core/canonical.js';
import type { FrameSink, StreamEncoder, WireProfile } from '../../core/dialect.js';
import type { GatewayError } from '../../core/errors.js';
import type { ServiceTier } from '../../core/service-tier.js';
import { CALL_PREFIX, clientToolCallId } from '../../core/tool-call-ids.js';
import deltaSchema from '../../schemas/chat-delta.json' with { type: 'json' };
import type { ChatEcho } from './decode.js';
import { chatFinishReason, chatUsage } from './encode-body.js';
import { renderChatError } from './errors.js';

export interface ChatStreamOptions extends Omit<ChatEcho, 'tierAsked'> {
  id: string;
  created: number;
  modelId: string;
  wire: WireProfile;
  /** The tier served, said on every chunk (after `model`, as OpenAI places it); absent: not said (echoed-tier.ts). */
  serviceTier?: ServiceTier;
}

/**
 * Canonical chunks → chat-completions SSE.
 * Profile `spec`: `message_start`, `message_delta` per delta (the first one `{role:'assistant', content:''}`),
 * `message_stop` with the finish_reason (and usage when asked). Profile `openai`: data-only chunks and `[DONE]`.
 */
export class ChatStreamEncoder implements StreamEncoder {
  readonly #options: ChatStreamOptions;
  /** `"id":…,"object":…,"created":…,"model":…` — the same on every chunk, serialized once. */
  readonly #head: string;
  readonly #started = new Set<number>();
  readonly #calledTool = new Set<number>();
  /** The tool calls begun, as `choice:call` (the first fragment of one carries its id). */
  readonly #calls = new Set<string>();
  readonly #finish = new Map<number, FinishReason | null>();
  #usage: ChatUsage | null = null;

  constructor(options: ChatStreamOptions) {
    this.#options = options;
    const tier = options.serviceTier === undefined ? '' : `,"service_tier":${JSON.stringify(options.serviceTier)}`;
    this.#head = `"id":${JSON.stringify(options.id)},"object":"chat.completion.chunk","created":${options.created},"model":${JSON.stringify(options.modelId)}${tier}`;
  }

  start(out: FrameSink): void {
    if (this.#options.wire === 'openai') return;
    const { id, created, modelId, serviceTier } = this.#options;
    const tier = serviceTier === undefined ? {} : { service_tier: serviceTier };
    out.frame(
      'message_start',
      JSON.stringify({ id, object: 'chat.completion', created, model: modelId, ...tier, choices: [] }),
    );
  }

  event(event: CanonicalEvent, out: FrameSink): void {
    // Search never runs on this dialect (spec rule 7): only upstream chunks reach it.
    if (event.type !== 'chunk') return;
    const chunk = event.chunk;
    if (chunk.usage) this.#usage = chunk.usage;
    const usage = this.#options.continuousUsage && chunk.usage ? chatUsage(chunk.usage) : undefined;
    if (this.#options.wire === 'openai') return this.#openaiChunk(chunk.choices, usage, out);
    for (const choice of chunk.choices) this.#specChoice(choice, usage, out);
  }

  end(out: FrameSink): void {
    if (this.#options.wire === 'openai') {
      if (this.#options.includeUsage && this.#usage)
        out.frame(null, `{${this.#head},"choices":[],"usage":${JSON.stringify(chatUsage(this.#usage))}}`);
      out.frame(null, '[DONE]');
      return;
    }
    const indices = this.#finish.size > 0 ? [...this.#finish.keys()] : [0];
    const choices = indices.map((index) => ({
      index,
      delta: {},
      finish_reason: chatFinishReason(this.#finish.get(index), this.#calledTool.has(index)),
    }));
    const usage = this.#options.includeUsage && this.#usage ? `,"usage":${JSON.stringify(chatUsage(this.#usage))}` : '';
    out.frame('message_stop', `{${this.#head},"choices":${JSON.stringify(choices)}${usage}}`);
  }

  error(error: GatewayError, out: FrameSink): void {
    out.frame(this.#options.wire === 'openai' ? null : 'error', JSON.stringify(renderChatError(error).body));
  }

  #specChoice(choice: ChatChunkChoice, usage: ChatUsage | undefined, out: FrameSink): void {
    const index = choice.index;
    if (!this.#started.has(index)) {
      this.#started.add(index);
      this.#specDelta(index, { role: 'assistant', content: '' }, usage, out);
    }
    const delta = this.#clientDelta(index, choice.delta);
    if (delta.tool_calls) this.#calledTool.add(index);
    if (delta.content !== undefined || delta.tool_calls !== undefined || delta.reasoning_content !== undefined) {
      this.#specDelta(index, delta, usage, out);
    }
    if (choice.finish_reason) this.#finish.set(index, choice.finish_reason);
  }

  #specDelta(index: number, delta: ChatDelta, usage: ChatUsage | undefined, out: FrameSink): void {
    const tail = usage ? `,"usage":${JSON.stringify(usage)}` : '';
    out.frame(
      'message_delta',
      `{${this.#head},"choices":[{"index":${index},"delta":${stringifyDelta(delta)}}]${tail}}`,
    );
  }

  /** The delta as the client gets it: without empty fields, each call's id in chat's form (core/tool-call-ids.ts). */
  #clientDelta(choice: number, delta: ChatDelta): ChatDelta {
    const clean = cleanDelta(delta);
    if (!clean.tool_calls) return clean;
    clean.tool_calls = clean.tool_calls.map((fragment) => {
      const key = `${choice}:${fragment.index}`;
      const first = !this.#calls.has(key);
      if (first) this.#calls.add(key);
      if (!first && !fragment.id) return fragment;
      const generated = `${this.#options.id}_${choice}_${fragment.index}`;
      return { ...fragment, id: clientToolCallId(CALL_PREFIX, fragment.id, generated) };
    });
    return clean;
  }

  #openaiChunk(choices: ChatChunkChoice[], usage: ChatUsage | undefined, sink: FrameSink): void {
    const out: string[] = [];
    for (const choice of choices) {
      let delta = this.#clientDelta(choice.index, choice.delta);
      if (!this.#started.has(choice.index)) {
        this.#started.add(choice.index);
        delta = { role: 'assistant', content: '', ...delta };
      } else if (isEmptyDelta(delta) && !choice.finish_reason && !choice.logprobs) continue;
      if (delta.tool_calls) this.#calledTool.add(choice.index);
      const finish = choice.finish_reason
        ? `"${chatFinishReason(choice.finish_reason, this.#calledTool.has(choice.index))}"`
        : 'null';
      out.push(
        `{"index":${choice.index},"delta":${stringifyDelta(delta)},"logprobs":${JSON.stringify(choice.logprobs ?? null)},"finish_reason":${finish}}`,
      );
    }
    // A chunk with nothing the client sees (running usage it did not ask for, an emptied delta) is not sent.
    if (out.length === 0 && usage === undefined) return;
    const tail = usage ? `,"usage":${JSON.stringify(usage)}` : '';
    sink.frame(null, `{${this.#head},"choices":[${out.join(',')}]${tail}}`);
  }
}

/** Compiled once: about 3× faster than JSON.stringify for the per-chunk delta (`npm run bench:serialize`). */
const stringifyDelta = fastJson(deltaSchema);

function isEmptyDelta(delta: ChatDelta): boolean {
  return delta.content === undefined && delta.reasoning_content === undefined && delta.tool_calls === undefined;
}

/** The delta without empty fields (vLLM sends `tool_calls: []` beside text) and without the role. */
function cleanDelta(delta: ChatDelta): ChatDelta {
  const clean: ChatDelta = {};
  if (typeof delta.content === 'string' && delta.content !== '') clean.content = delta.content;
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') clean.reasoning_content = reasoning;
  if (delta.tool_calls && delta.tool_calls.length > 0) clean.tool_calls = delta.tool_calls;
  return clean;
}
