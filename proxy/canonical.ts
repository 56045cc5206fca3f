// The canonical form: OpenAI chat completions, as the upstream speaks it.
// Every dialect decodes into a ChatRequest and encodes from a stream of CanonicalEvents.

export type JsonObject = { [key: string]: unknown };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatContentPart { type: 'text'; text: string }

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | ChatContentPart[]; name?: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | { role: 'assistant'; content?: string | ChatContentPart[] | null; tool_calls?: ChatToolCall[]; reasoning_content?: string; name?: string }
  | { role: 'tool'; content: string | ChatContentPart[]; tool_call_id: string };

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: JsonObject; strict?: boolean };
}

export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  tools?: ChatFunctionTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  stream?: boolean;
  stream_options?: { include_usage?: boolean; continuous_usage_stats?: boolean };
  [field: string]: unknown;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * `cached_tokens`: prompt tokens read from a cache (included in prompt_tokens, as OpenAI counts them).
   * `cache_creation`: prompt tokens written to the gateway's prompt cache by this request, per TTL
   * (gateway-side, from `cache_control` marks; also included in prompt_tokens).
   */
  prompt_tokens_details?: { cached_tokens?: number; cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } } | null;
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
  message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; reasoning_content?: string | null };
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
}

/** What flows out of the chain: upstream chunks (gateway-side events join this union later, e.g. search). */
export type CanonicalEvent = { type: 'chunk'; chunk: ChatChunk };
