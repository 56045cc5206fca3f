// OpenAI chat messages and tools → what vLLM hands the chat template (vLLM's chat_utils):
// text parts are joined with "\n", missing content becomes "", assistant tool-call arguments are
// JSON-parsed (the template re-serialises them with Python's json.dumps), and each tool is
// pydantic's model_dump() of vLLM's FunctionDefinition: name, description, parameters (null when
// absent) and strict only when set; any other field of the tool is dropped.
import type { ChatMessage, FunctionTool } from './chat-types.js';
import { badRequest } from './errors.js';
import type { TemplateMessage, TemplateTool } from './qwen3-prompt.js';

export function messageText(content: ChatMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text).join('\n');
}

export function toTemplateMessages(messages: readonly ChatMessage[]): TemplateMessage[] {
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

export function toTemplateTools(tools: readonly FunctionTool[] | null): TemplateTool[] | null {
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
    throw badRequest(`messages[${message}].tool_calls[${call}].function.arguments is not valid JSON: ${reason}`, 'messages');
  }
}
