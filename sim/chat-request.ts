// Validation of a chat-completions body into a SimChatRequest. Wrong types are a 400 in vLLM's
// error shape (vLLM's own messages come from pydantic; ours name the field the same way).
import type {
  SimChatMessage,
  SimChatRequest,
  SimToolCall,
  FunctionTool,
  Role,
  TextPart,
  ToolChoice,
} from './chat-types.js';
import { badRequest } from './errors.js';

const ROLES: ReadonlySet<string> = new Set<Role>(['system', 'developer', 'user', 'assistant', 'tool']);
const NUMERIC_SAMPLING_FIELDS = [
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'frequency_penalty',
  'presence_penalty',
  'repetition_penalty',
  'length_penalty',
  'seed',
  'top_logprobs',
  'min_tokens',
] as const;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseChatRequest(body: unknown): SimChatRequest {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.');
  const model = optional(body, 'model', 'string');
  if (body.messages === undefined) throw badRequest('messages: Field required', 'messages');
  const messages = parseMessages(body.messages);
  const tools = parseTools(body.tools);
  const toolChoice = parseToolChoice(body.tool_choice, tools);
  const stream = optional(body, 'stream', 'boolean') ?? false;
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null) {
    if (!isRecord(streamOptions)) throw badRequest('stream_options: Input should be an object', 'stream_options');
    if (!stream) throw badRequest('Stream options can only be defined when `stream=True`.', 'stream_options');
  }
  const options = isRecord(streamOptions) ? streamOptions : {};
  const includeUsage = optional(options, 'include_usage', 'boolean', 'stream_options.') ?? false;
  const continuous = optional(options, 'continuous_usage_stats', 'boolean', 'stream_options.') ?? false;
  const n = optional(body, 'n', 'number');
  if (n !== null && n !== 1) throw badRequest('The sim generates one choice per request: n must be 1.', 'n');
  for (const field of NUMERIC_SAMPLING_FIELDS) optional(body, field, 'number');
  optional(body, 'logprobs', 'boolean');
  const kwargs = body.chat_template_kwargs;
  if (kwargs !== undefined && kwargs !== null && !isRecord(kwargs)) {
    throw badRequest('chat_template_kwargs: Input should be an object', 'chat_template_kwargs');
  }
  const generation = generationPrompt(body);
  return {
    model,
    messages,
    tools,
    toolChoice,
    parallelToolCalls: optional(body, 'parallel_tool_calls', 'boolean') ?? true,
    maxTokens: parseMaxTokens(body),
    stop: parseStop(body.stop),
    includeStopStrInOutput: optional(body, 'include_stop_str_in_output', 'boolean') ?? false,
    stream,
    includeUsage,
    continuousUsage: includeUsage && continuous,
    ...generation,
    chatTemplateKwargs: isRecord(kwargs) ? kwargs : {},
    timingsPerToken: false,
  };
}

/**
 * `add_generation_prompt` (default true) and `continue_final_message` (default false), as vLLM checks them:
 * both set true is a 400; continuing with the default generation prompt fails in the template (chat-prompt.ts).
 */
export function generationPrompt(body: Record<string, unknown>): {
  addGenerationPrompt: boolean;
  continueFinalMessage: boolean;
} {
  const add = optional(body, 'add_generation_prompt', 'boolean');
  const continues = optional(body, 'continue_final_message', 'boolean') ?? false;
  if (add === true && continues) {
    throw badRequest('Cannot set both `continue_final_message` and `add_generation_prompt` to True.');
  }
  return { addGenerationPrompt: add ?? true, continueFinalMessage: continues };
}

/** vLLM's `cache_salt`: a non-empty string, or absent (null); anything else is its 400. */
export function parseCacheSalt(body: unknown): string | null {
  const salt = isRecord(body) ? body.cache_salt : undefined;
  if (salt === undefined || salt === null) return null;
  if (typeof salt !== 'string' || salt === '')
    throw badRequest("Parameter 'cache_salt' must be a non-empty string if provided.", 'cache_salt');
  return salt;
}

export function parseMessages(value: unknown): SimChatMessage[] {
  if (!Array.isArray(value)) throw badRequest('messages: Input should be a valid list', 'messages');
  if (value.length === 0) throw badRequest('messages: List should have at least 1 item', 'messages');
  return value.map((m, i) => parseMessage(m, `messages[${i}]`));
}

function parseMessage(value: unknown, at: string): SimChatMessage {
  if (!isRecord(value)) throw badRequest(`${at}: Input should be an object`, 'messages');
  const role = value.role;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw badRequest(`${at}.role: Input should be 'system', 'developer', 'user', 'assistant' or 'tool'`, 'messages');
  }
  const message: SimChatMessage = { role: role as Role, content: parseContent(value.content, `${at}.content`) };
  const name = optional(value, 'name', 'string', `${at}.`);
  if (name !== null) message.name = name;
  const toolCallId = optional(value, 'tool_call_id', 'string', `${at}.`);
  if (toolCallId !== null) message.tool_call_id = toolCallId;
  if (value.tool_calls !== undefined && value.tool_calls !== null) {
    message.tool_calls = parseToolCalls(value.tool_calls, `${at}.tool_calls`);
  }
  return message;
}

function parseContent(value: unknown, at: string): string | TextPart[] | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw badRequest(`${at}: Input should be a string or a list of content parts`, 'messages');
  return value.map((part, i): TextPart => {
    if (!isRecord(part) || typeof part.type !== 'string') {
      throw badRequest(`${at}[${i}]: Input should be a content part object`, 'messages');
    }
    if (part.type !== 'text') {
      throw badRequest(
        `${at}[${i}]: content part type '${part.type}' is not supported by this text-only model`,
        'messages',
      );
    }
    if (typeof part.text !== 'string') throw badRequest(`${at}[${i}].text: Input should be a valid string`, 'messages');
    return { type: 'text', text: part.text };
  });
}

function parseToolCalls(value: unknown, at: string): SimToolCall[] {
  if (!Array.isArray(value)) throw badRequest(`${at}: Input should be a valid list`, 'messages');
  return value.map((call, i): SimToolCall => {
    const here = `${at}[${i}]`;
    if (!isRecord(call) || !isRecord(call.function)) throw badRequest(`${here}.function: Field required`, 'messages');
    const { name, arguments: args } = call.function;
    if (typeof name !== 'string') throw badRequest(`${here}.function.name: Input should be a valid string`, 'messages');
    if (typeof args !== 'string')
      throw badRequest(`${here}.function.arguments: Input should be a valid string`, 'messages');
    const id = typeof call.id === 'string' ? call.id : '';
    return { id, type: 'function', function: { name, arguments: args } };
  });
}

export function parseTools(value: unknown): FunctionTool[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw badRequest('tools: Input should be a valid list', 'tools');
  return value.map((tool, i): FunctionTool => {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) throw badRequest(`${at}: Input should be an object`, 'tools');
    if (tool.type !== undefined && tool.type !== 'function')
      throw badRequest(`${at}.type: Input should be 'function'`, 'tools');
    const fn = tool.function;
    if (!isRecord(fn)) throw badRequest(`${at}.function: Field required`, 'tools');
    if (typeof fn.name !== 'string') throw badRequest(`${at}.function.name: Input should be a valid string`, 'tools');
    const parameters = fn.parameters;
    if (parameters !== undefined && parameters !== null && !isRecord(parameters)) {
      throw badRequest(`${at}.function.parameters: Input should be an object`, 'tools');
    }
    const out: FunctionTool = {
      type: 'function',
      function: {
        name: fn.name,
        description: optional(fn, 'description', 'string', `${at}.function.`),
        parameters: isRecord(parameters) ? parameters : null,
      },
    };
    const strict = optional(fn, 'strict', 'boolean', `${at}.function.`);
    if (strict !== null) out.function.strict = strict;
    return out;
  });
}

function parseToolChoice(value: unknown, tools: FunctionTool[] | null): ToolChoice {
  let choice: ToolChoice;
  if (value === undefined || value === null) {
    choice = tools && tools.length > 0 ? 'auto' : 'none';
  } else if (value === 'none' || value === 'auto' || value === 'required') {
    choice = value;
  } else if (isRecord(value) && isRecord(value.function) && typeof value.function.name === 'string') {
    choice = { type: 'function', function: { name: value.function.name } };
  } else {
    throw badRequest("tool_choice: Input should be 'none', 'auto', 'required' or a named function", 'tool_choice');
  }
  // vLLM refuses `auto` too when there are no tools (OpenAI does the same).
  if (choice !== 'none' && !tools) {
    throw badRequest('When using `tool_choice`, `tools` must be set.', 'tool_choice');
  }
  if (typeof choice === 'object') {
    const name = choice.function.name;
    if (!tools?.some((t) => t.function.name === name)) {
      throw badRequest(
        'The tool specified in `tool_choice` does not match any of the specified `tools`',
        'tool_choice',
      );
    }
  }
  return choice;
}

function parseMaxTokens(body: Record<string, unknown>): number | null {
  const completion = optional(body, 'max_completion_tokens', 'number');
  const legacy = optional(body, 'max_tokens', 'number');
  // vLLM: `max_completion_tokens or max_tokens`.
  const value = completion || legacy;
  if (value === null) return null;
  const field = completion ? 'max_completion_tokens' : 'max_tokens';
  if (!Number.isInteger(value)) throw badRequest(`${field}: Input should be a valid integer`, field);
  if (value < 1) throw badRequest(`max_tokens must be at least 1, got ${value}.`, field);
  return value;
}

function parseStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((s): s is string => typeof s === 'string')) return value;
  throw badRequest('stop: Input should be a valid string or a list of strings', 'stop');
}

type Kind = 'string' | 'number' | 'boolean';
type KindType<K extends Kind> = K extends 'string' ? string : K extends 'number' ? number : boolean;

/** The field's value if present and of the right type, null if absent or null, else a 400. */
function optional<K extends Kind>(obj: Record<string, unknown>, key: string, kind: K, prefix = ''): KindType<K> | null {
  const value = obj[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== kind || (kind === 'number' && !Number.isFinite(value))) {
    throw badRequest(
      `${prefix}${key}: Input should be a valid ${kind}`,
      prefix ? (prefix.split(/[.[]/)[0] ?? key) : key,
    );
  }
  return value as KindType<K>;
}
