// The canonical form: OpenAI chat completions, as the upstream speaks it.
// Every dialect decodes into a ChatRequest and encodes from a stream of CanonicalEvents, or from a ChatCompletion.
import type { RequestedServiceTier } from './service-tier.js';

export type JsonObject = { [key: string]: unknown };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatContentPart {
  type: 'text';
  text: string;
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | ChatContentPart[]; name?: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | {
      role: 'assistant';
      content?: string | ChatContentPart[] | null;
      tool_calls?: ChatToolCall[];
      reasoning_content?: string;
      name?: string;
    }
  | { role: 'tool'; content: string | ChatContentPart[]; tool_call_id: string };

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: JsonObject; strict?: boolean };
}

export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/**
 * The canonical request. Its top-level fields are those an upstream may be sent (each flavor's allow-list,
 * proxy/upstream/request-fields.ts); the gateway's own are under `gateway`, never sent as they are; a client's
 * fields the gateway does not model are under `extra_fields`, sent only where the operator allows them.
 */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  tools?: ChatFunctionTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  /** As the client sent it on chat (its schema leaves it unchecked); proxy/upstream/structured-output.ts reads it. */
  response_format?: unknown;
  logprobs?: boolean;
  top_logprobs?: number;
  n?: number;
  user?: string;
  /** Anthropic's (the message dialect sets it); a chat client's is passed unchecked. */
  top_k?: unknown;
  /** Sent only as a value the flavor's server takes (proxy/upstream/structured-output.ts). */
  reasoning_effort?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean; continuous_usage_stats?: boolean };
  gateway?: GatewayRequestFields;
  /** A client's fields the gateway does not model (vLLM's `chat_template_kwargs`, …): sent only when named in `upstream.extra_fields`. */
  extra_fields?: JsonObject;
}

/** The top-level fields of a canonical request an upstream may be sent: a chat body's other fields go to `extra_fields`. */
export const CHAT_REQUEST_FIELDS = [
  'model',
  'messages',
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'logprobs',
  'top_logprobs',
  'n',
  'user',
  'top_k',
  'reasoning_effort',
  'stream',
  'stream_options',
] as const satisfies readonly (keyof ChatRequest)[];

export type ChatRequestField = (typeof CHAT_REQUEST_FIELDS)[number];

const FIELD_NAMES: ReadonlySet<string> = new Set(CHAT_REQUEST_FIELDS);

export function isChatRequestField(name: string): name is ChatRequestField {
  return FIELD_NAMES.has(name);
}

/** The names of the gateway-side fields (GatewayRequestFields): never sent upstream as they are, whatever the config says. */
export const GATEWAY_REQUEST_FIELDS = [
  'web_search',
  'web_search_replay',
  'cache_blocks',
  'enable_thinking',
  'thinking_replay',
  'prefill',
  'response_format_param',
  'conversation_key',
  'service_tier',
] as const satisfies readonly (keyof GatewayRequestFields)[];

/** The canonical request's gateway-side fields: the decoders set them, the plugins and the terminal read them. */
export interface GatewayRequestFields {
  /** Never sent upstream: the dialect's server web search tool, for the search plugin. */
  web_search?: WebSearchOptions;
  /** Never sent upstream: earlier search results the client passed back, for the search plugin to verify. */
  web_search_replay?: ReplayedSearch[];
  /**
   * The client's thinking switch (messages `thinking`, responses `reasoning.effort`, chat `enable_thinking`): true
   * on, false off; absent, the upstream's default stands. The terminal sends it as the flavor's own field
   * (`chat_template_kwargs.enable_thinking` for Qwen3-style templates).
   */
  enable_thinking?: boolean;
  /** Never sent upstream: signed thinking a client passed back, for the core to verify (proxy/exchange/thinking-replay.ts). */
  thinking_replay?: ReplayedThinking[];
  /** Never sent upstream: the prompt's blocks in cache order when the client marked some for caching, for the promptcache plugin. */
  cache_blocks?: CacheBlock[];
  /**
   * The text of the trailing assistant message the answer continues (a prefill, core/prefill.ts), set by the
   * decoders. The terminal sends the flavor's continuation fields and strips the prefill where the server
   * repeats it; the token counters render the last turn open.
   */
  prefill?: string;
  /**
   * The client's own field for `response_format` (`output_config.format`, `text.format`), named in the 400 of a
   * server that cannot enforce it (proxy/upstream/structured-output.ts); absent: `response_format`.
   */
  response_format_param?: string;
  /**
   * Never sent upstream as such: the client's name for its conversation (chat and responses `prompt_cache_key`),
   * which keeps its turns on one replica (proxy/upstream/affinity-key.ts).
   */
  conversation_key?: string;
  /**
   * Never sent upstream: the client's `service_tier` (chat, responses), checked by the decoder; absent or
   * `auto`: the organization's default tier. The meter resolves it (core/service-tier.ts).
   */
  service_tier?: RequestedServiceTier;
}

/**
 * A block of the prompt in cache order (the message dialect's: tools, then system blocks, then the
 * messages' content blocks), as the promptcache plugin hashes it into prefixes and counts them.
 */
export interface CacheBlock {
  /** Where the block sits (`t` a tool, `s` a system block, `m<index>:<role>` a message's): part of its prefix's identity. */
  place: string;
  /** The block as the client sent it, its mark included. */
  block: JsonObject;
  /** The block's cache mark as the client sent it, when it has one; unchecked (the plugin checks it). */
  mark: unknown;
  /** The block's path in the client's request, for errors (e.g. `system[1]`). */
  param: string;
  /** The canonical request cut just after this block: what the prefix's tokens are counted on. */
  prefix: () => ChatRequest;
}

/** A thinking block of an earlier turn, as the client passed it back (its text is already that turn's `reasoning_content`). */
export interface ReplayedThinking {
  /** Where the block is in the client's request, e.g. `messages[1].content[0]`. */
  param: string;
  thinking: string;
  signature: string;
}

/** How much of the results the model gets to read (the responses dialect's `search_context_size`; `medium` otherwise). */
export type SearchContextSize = 'low' | 'medium' | 'high';

export interface SearchUserLocation {
  type?: 'approximate';
  city?: string;
  region?: string;
  country?: string;
  timezone?: string;
}

/** A dialect's server search tool, decoded: what the search plugin runs, and how to refuse it when no plugin does. */
export interface WebSearchOptions {
  /** Searches allowed in this request (message dialect `max_uses`, default 5). */
  max_uses: number;
  context_size: SearchContextSize;
  allowed_domains?: string[];
  blocked_domains?: string[];
  user_location?: SearchUserLocation;
  /** The 400 to answer when no search plugin is in the chain (the dialect's own wording), naming the tool's field. */
  unavailable: { message: string; param: string };
}

/** A search result block of an earlier turn, as the client passed it back; its call is an assistant tool call with this id. */
export interface ReplayedSearch {
  tool_call_id: string;
  /** Where the block is in the client's request, e.g. `messages[1].content[1]`. */
  param: string;
  /** The block's `content` as received: results with `encrypted_content`, or an error object (checked by the plugin). */
  content: unknown;
}

/** The function the search plugin offers the model, and the name replayed searches are restored under. */
export const SEARCH_FUNCTION_NAME = 'web_search';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * `cached_tokens`: prompt tokens read from a cache (included in prompt_tokens, as OpenAI counts them).
   * `cache_creation`: prompt tokens written to the gateway's prompt cache by this request, per TTL
   * (gateway-side, from `cache_control` marks; also included in prompt_tokens).
   */
  prompt_tokens_details?: {
    cached_tokens?: number;
    cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  } | null;
  /**
   * `reasoning_tokens`: completion tokens spent on reasoning (included in completion_tokens): the upstream's
   * own figure when it reports one, else the gateway's count (proxy/upstream/reasoning-count.ts); set when
   * the answer reasoned or the upstream said.
   */
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** Gateway-side: searches executed for this answer (errored ones excluded); set when the request offered search. */
  web_search_requests?: number;
}

/** A tool-call fragment in a streamed delta, keyed on `index` as the upstream streams it. */
export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ChatToolCallDelta[] | null;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatChunkChoice {
  index: number;
  delta: ChatDelta;
  finish_reason?: FinishReason | null;
  /** vLLM's extra: the matched stop string (or token id) when finish_reason is `stop`. */
  stop_reason?: string | number | null;
  logprobs?: unknown;
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatChunkChoice[];
  usage?: ChatUsage | null;
}

export interface ChatCompletionChoice {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    tool_calls?: ChatToolCall[];
    reasoning_content?: string | null;
  };
  finish_reason: FinishReason | null;
  stop_reason?: string | number | null;
  logprobs?: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: ChatUsage | null;
  /** Gateway-side: the answer in the order it was produced, set only when gateway events (search) took part in it. */
  segments?: CompletionSegment[];
}

/** A result the model read, as the client sees it: the page itself travels only sealed (`encrypted_content`). */
export interface SearchSource {
  url: string;
  title: string;
  page_age: string | null;
  encrypted_content: string;
}

/** A citation of a result, at a `[n]` marker the model wrote; `encrypted_index` seals which result and passage it is. */
export interface Citation {
  url: string;
  title: string;
  cited_text: string;
  encrypted_index: string;
}

/** A server-side search starts (the model's call to the search function, which the client never sees as a tool call). */
export interface SearchCallEvent {
  type: 'search_call';
  id: string;
  query: string;
}

/** Its outcome: the results, or an error code (`max_uses_exceeded`, `unavailable`, …) and no results. */
export interface SearchResultEvent {
  type: 'search_result';
  id: string;
  results: SearchSource[];
  error_code?: string;
}

/** The text so far ends with `marker` (e.g. `[1]`), which cites this source. */
export interface CitationEvent {
  type: 'citation';
  marker: string;
  citation: Citation;
}

export type CompletionSegment =
  | { type: 'text'; text: string; citations: Array<{ marker: string; citation: Citation }> }
  | { type: 'reasoning'; text: string }
  | { type: 'search_call'; id: string; query: string }
  | { type: 'search_result'; id: string; results: SearchSource[]; error_code?: string };

/** The events of an answer in pieces (what a stream encoder reads): upstream chunks, and the gateway's own search events between them. */
export type CanonicalEvent = { type: 'chunk'; chunk: ChatChunk } | SearchCallEvent | SearchResultEvent | CitationEvent;

/** A non-streamed call's answer, whole: the upstream's completion in canonical form (proxy/upstream/upstream-completion.ts). */
export interface CompletionEvent {
  type: 'completion';
  completion: ChatCompletion;
}

/** What flows out of the chain: a streamed answer's events, or a non-streamed call's one completion. */
export type ResponseEvent = CanonicalEvent | CompletionEvent;
