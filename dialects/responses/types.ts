// The responses dialect's wire types (spec 2.6/2.7, docs/wire.md "Responses dialect"), as far as the gateway reads or writes them.
import type { JsonObject } from '../../core/canonical.js';
import type { RequestedServiceTier } from '../../core/service-tier.js';

export interface InputTextPart {
  type: 'input_text' | 'output_text';
  text: string;
}

/** A message item: `type: 'message'`, or the short form without a type. */
export interface MessageItem {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | InputTextPart[];
}

export interface FunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  /** Set when the tool is one of a `namespace` tool's (Codex replays it so). */
  namespace?: string | null;
  arguments: string;
}

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string | InputTextPart[];
}

/** Items from earlier rounds that carry nothing the model needs again (spec 2.7: search rounds are skipped). */
export interface SkippedItem {
  type: 'web_search_call' | 'reasoning';
}

export type InputItem =
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | CustomToolCallItem
  | CustomToolCallOutputItem
  | LocalShellCallItem
  | LocalShellCallOutputItem
  | CompactionTriggerItem
  | CompactionItem
  | SkippedItem;

/** Codex's request to compact the conversation (compaction.ts): the last input item. */
export interface CompactionTriggerItem {
  type: 'compaction_trigger';
}

/** A compacted conversation, as an earlier compaction answered it (compaction.ts), sent back in place of the history. */
export interface CompactionItem {
  type: 'compaction';
  id?: string | null;
  encrypted_content: string;
}

/** A call of a `custom` (free-form) tool: its input is plain text, not JSON arguments. */
export interface CustomToolCallItem {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  namespace?: string | null;
  input: string;
}

export interface CustomToolCallOutputItem {
  type: 'custom_tool_call_output';
  call_id: string;
  output: string | InputTextPart[];
}

/** The `exec` action of a `local_shell` call. */
export interface LocalShellAction {
  type: 'exec';
  command: string[];
  timeout_ms?: number | null;
  working_directory?: string | null;
  env?: Record<string, string> | null;
  user?: string | null;
}

export interface LocalShellCallItem {
  type: 'local_shell_call';
  /** OpenAI's input names the call by `call_id`; older items by `id`. */
  call_id?: string | null;
  id?: string | null;
  action: LocalShellAction;
}

export interface LocalShellCallOutputItem {
  type: 'local_shell_call_output';
  call_id?: string | null;
  id?: string | null;
  output: string;
}

export interface FunctionToolParam {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: JsonObject | null;
  strict?: boolean | null;
}

/** Codex's tool group: its function tools reach the model under flattened names (tool-names.ts). */
export interface NamespaceToolParam {
  type: 'namespace';
  name: string;
  description?: string | null;
  tools: FunctionToolParam[];
}

/** A free-form tool: the model writes its input as text, optionally in a grammar (`format`). */
export interface CustomToolParam {
  type: 'custom';
  name: string;
  description?: string | null;
  format?: { type: 'text' } | { type: 'grammar'; syntax: string; definition: string } | null;
}

/** The shell tool of Codex's `local` shell type: the model asks for an argv to run. */
export interface LocalShellToolParam {
  type: 'local_shell';
}

/** Every tool the client runs itself (the search tool is run by the gateway). */
export type ClientToolParam = FunctionToolParam | NamespaceToolParam | CustomToolParam | LocalShellToolParam;

/** The search tool (spec 2.6): `web_search`, or an alias; the schema checked the field types. */
export interface WebSearchToolParam {
  type: 'web_search' | 'web_search_preview' | 'web_search_2025_08_26' | 'web_search_preview_2025_03_11';
  search_context_size?: 'low' | 'medium' | 'high';
  filters?: { allowed_domains?: string[] | null; blocked_domains?: string[] | null } | null;
  user_location?: JsonObject | null;
}

export type ResponsesToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: JsonObject; description?: string; strict?: boolean | null };

/** A request that passed the schema (schemas/responses-request.json) and the tool checks. */
export interface ResponsesRequest {
  model: string;
  input: string | InputItem[];
  instructions?: string | null;
  /** The spec's name. */
  max_tokens?: number | null;
  /** OpenAI's name. */
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  /** Accepted and echoed; the gateway returns no logprobs. */
  top_logprobs?: number | null;
  /** Accepted and echoed; not enforced. */
  max_tool_calls?: number | null;
  stream?: boolean | null;
  tools?: Array<ClientToolParam | WebSearchToolParam> | null;
  tool_choice?: ResponsesToolChoice | null;
  parallel_tool_calls?: boolean | null;
  text?: { format?: TextFormat } | null;
  metadata?: JsonObject | null;
  reasoning?: JsonObject | null;
  user?: string | null;
  safety_identifier?: string | null;
  prompt_cache_key?: string | null;
  /** Checked by the schema; the meter serves it (core/service-tier.ts), the response object echoes the tier served. */
  service_tier?: RequestedServiceTier | null;
  [field: string]: unknown;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete';

/** The response's own status: an item's, or `failed` when the upstream broke off the stream. */
export type ResponseObjectStatus = ResponseStatus | 'failed';

export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: JsonObject[];
}

export interface OutputMessage {
  type: 'message';
  id: string;
  status: ResponseStatus;
  role: 'assistant';
  content: OutputTextPart[];
}

export interface OutputFunctionCall {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  /** The `namespace` tool the function belongs to, if any (Codex finds the tool by both). */
  namespace?: string;
  arguments: string;
  status: ResponseStatus;
}

/** A server-side search (spec 2.7): before the message that uses it; `failed` when the search errored. */
export interface OutputWebSearchCall {
  type: 'web_search_call';
  id: string;
  status: 'in_progress' | 'searching' | 'completed' | 'failed';
  action: { type: 'search'; query: string };
}

export interface OutputCustomToolCall {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  namespace?: string;
  input: string;
  status: ResponseStatus;
}

export interface OutputLocalShellCall {
  type: 'local_shell_call';
  id: string;
  call_id: string;
  action: Required<LocalShellAction>;
  status: ResponseStatus;
}

/** A call the client runs: what a canonical tool call becomes (call-items.ts). */
export type OutputCall = OutputFunctionCall | OutputCustomToolCall | OutputLocalShellCall;

/** The model's reasoning (its text as one `reasoning_text` part; no summary is made). */
export interface OutputReasoning {
  type: 'reasoning';
  id: string;
  summary: [];
  content: Array<{ type: 'reasoning_text'; text: string }>;
}

/** The answer to a compaction request (compaction.ts). */
export interface OutputCompaction {
  type: 'compaction';
  id: string;
  encrypted_content: string;
}

export type OutputItem = OutputMessage | OutputCall | OutputWebSearchCall | OutputReasoning | OutputCompaction;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  /** With the search tool: the searches executed for this answer (spec 2.7). */
  web_search_requests?: number;
}
