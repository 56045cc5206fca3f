// The chat-completions request as the sim understands it, after validation (chat-request.ts).

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface SimToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface SimChatMessage {
  role: Role;
  content: string | TextPart[] | null;
  name?: string;
  tool_calls?: SimToolCall[];
  tool_call_id?: string;
}

export interface FunctionTool {
  type: 'function';
  function: {
    name: string;
    description?: string | null;
    parameters?: Record<string, unknown> | null;
    strict?: boolean | null;
  };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface SimChatRequest {
  /** null when the request names no model (vLLM then uses the served one). */
  model: string | null;
  messages: SimChatMessage[];
  tools: FunctionTool[] | null;
  /** 'auto' when tools are given without a choice, else 'none', like vLLM. */
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  /** max_completion_tokens, else max_tokens; null when neither is set. */
  maxTokens: number | null;
  stop: string[];
  includeStopStrInOutput: boolean;
  stream: boolean;
  includeUsage: boolean;
  /** Running usage on every chunk: needs include_usage too, as in vLLM. */
  continuousUsage: boolean;
  addGenerationPrompt: boolean;
  /** vLLM's `continue_final_message`: the last (assistant) message is left open and the answer continues it. */
  continueFinalMessage: boolean;
  chatTemplateKwargs: Record<string, unknown>;
  /** llama-server's `timings_per_token`: every chunk carries its timings (vLLM has no such field: false). */
  timingsPerToken: boolean;
}
