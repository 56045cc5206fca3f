// The responses dialect's wire types (spec 2.6/2.7, docs/wire.md "Responses dialect"), as far as the gateway reads or writes them.
import type { JsonObject } from '../../proxy/canonical.js';

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

export type InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | SkippedItem;

export interface FunctionToolParam {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: JsonObject | null;
  strict?: boolean | null;
}

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
  stream?: boolean | null;
  tools?: Array<FunctionToolParam | WebSearchToolParam> | null;
  tool_choice?: ResponsesToolChoice | null;
  parallel_tool_calls?: boolean | null;
  text?: { format?: TextFormat } | null;
  metadata?: JsonObject | null;
  reasoning?: JsonObject | null;
  user?: string | null;
  [field: string]: unknown;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete';

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

/** The model's reasoning (its text as one `reasoning_text` part; no summary is made). */
export interface OutputReasoning {
  type: 'reasoning';
  id: string;
  summary: [];
  content: Array<{ type: 'reasoning_text'; text: string }>;
}

export type OutputItem = OutputMessage | OutputFunctionCall | OutputWebSearchCall | OutputReasoning;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  /** With the search tool: the searches executed for this answer (spec 2.7). */
  web_search_requests?: number;
}
