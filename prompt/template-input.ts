// OpenAI chat messages and tools → what vLLM hands the chat template (vLLM's chat_utils):
// text parts are joined with "\n", missing content becomes "", assistant tool-call arguments are
// JSON-parsed (the template re-serialises them with Python's json.dumps), and each tool is
// pydantic's model_dump() of vLLM's FunctionDefinition: name, description, parameters (null when
// absent) and strict only when set; any other field of the tool is dropped. Other message fields
// (reasoning_content included) do not reach the template.
import { PromptError } from './prompt-error.js';

/** A chat message as OpenAI's API carries it; both the gateway's canonical form and the sim's fit. */
export interface OpenAiMessage {
  role: string;
  content?: string | ReadonlyArray<{ type: string; text: string }> | null;
  name?: string;
  tool_calls?: ReadonlyArray<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** A function tool as OpenAI's API carries it. */
export interface OpenAiTool {
  type: string;
  function: {
    name: string;
    description?: string | null;
    parameters?: Readonly<Record<string, unknown>> | null;
    strict?: boolean | null;
  };
}

/** A tool call inside an assistant message, as the template sees it (arguments already parsed). */
export interface TemplateToolCall {
  id?: string;
  type?: string;
  function: { name: string; arguments: unknown };
}

/** One message as the template sees it: content is always a string. */
export interface TemplateMessage {
  role: string;
  content: string;
  name?: string;
  tool_calls?: TemplateToolCall[];
  tool_call_id?: string;
}

/** A tool as the template sees it: vLLM's `tool.model_dump()`. */
export type TemplateTool = Record<string, unknown>;

export function messageText(content: OpenAiMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text).join('\n');
}

/** Throws a PromptError (param `messages`) when a tool call's arguments are not JSON. */
export function toTemplateMessages(messages: readonly OpenAiMessage[]): TemplateMessage[] {
  return messages.map((m, i): TemplateMessage => {
    const out: TemplateMessage = { role: m.role, content: messageText(m.content) };
    if (m.role === 'assistant' && m.tool_calls) {
      out.tool_calls = m.tool_calls.map((call, j) => ({
        id: call.id,
        type: call.type,
        function: { name: call.function.name, arguments: parseArguments(call.function.arguments, i, j) },
      }));
    }
    if (m.role === 'tool' && m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
    if (m.name !== undefined) out.name = m.name;
    return out;
  });
}

export function toTemplateTools(tools: readonly OpenAiTool[] | null | undefined): TemplateTool[] | null {
  if (!tools) return null;
  return tools.map((tool) => {
    const fn: Record<string, unknown> = {
      name: tool.function.name,
      description: tool.function.description ?? null,
      parameters: tool.function.parameters ?? null,
    };
    if (tool.function.strict !== undefined && tool.function.strict !== null) fn.strict = tool.function.strict;
    return { type: 'function', function: fn };
  });
}

function parseArguments(text: string, message: number, call: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new PromptError(
      `messages[${message}].tool_calls[${call}].function.arguments is not valid JSON: ${reason}`,
      'messages',
      'messages',
    );
  }
}
