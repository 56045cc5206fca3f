// The message dialect's request as the decoder reads it (after schema validation).

export interface TextBlock {
  type: 'text';
  text: string;
}
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<{ type: string; text?: string }>;
  is_error?: boolean;
}
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}
export interface OtherBlock {
  type: string;
}
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | OtherBlock;

export interface MessageParam {
  role: 'user' | 'assistant' | 'system';
  content: string | ContentBlock[];
}

export interface ToolParam {
  type?: string;
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  /** The tool's input must follow input_schema exactly (strict tool use). */
  strict?: boolean;
}

export type ToolChoiceParam =
  string | { type: 'auto' | 'any' | 'tool' | 'none'; name?: string; disable_parallel_tool_use?: boolean };

/** Extended thinking: `enabled` with its budget, `adaptive` (the model decides), or `disabled`. */
export interface ThinkingParam {
  type: 'enabled' | 'adaptive' | 'disabled';
  budget_tokens?: number;
}

/** A JSON output format: the answer's text is JSON following the schema. */
export interface OutputFormat {
  type: 'json_schema';
  schema: Record<string, unknown>;
}

/** What the answer looks like (`format`) and how much the model spends on it (`effort`: low, medium, high, xhigh, max). */
export interface OutputConfig {
  format?: OutputFormat | null;
  effort?: string | null;
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlock[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  tools?: ToolParam[];
  tool_choice?: ToolChoiceParam;
  thinking?: ThinkingParam;
  output_config?: OutputConfig;
  /** The older spelling of `output_config.format` (structured outputs beta). */
  output_format?: OutputFormat | null;
}
