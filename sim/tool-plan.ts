// Which tools the simulated model calls (see README "Tool rule"):
// - tool_choice `none`, or no tools: none;
// - a named tool_choice: that tool;
// - `required`: the tools named in the last user message, else the first tool;
// - `auto`: the tools named in the last user message that it has not called since that message: all
//   of them at first, and once the conversation ends with tool results, those not called yet (a tool
//   the client loaded meanwhile, or one left for the next turn by parallel_tool_calls false), else none
//   (the model then answers with text quoting the results).
// A tool is "named" when its name appears as a whole word; calls follow the order of first mention;
// with parallel_tool_calls false only the first call is made.
import type { SimChatRequest, FunctionTool } from './chat-types.js';
import { buildArguments } from './tool-arguments.js';

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export function planToolCalls(request: SimChatRequest, lastUserText: string): PlannedCall[] {
  const { tools, toolChoice } = request;
  if (!tools || tools.length === 0 || toolChoice === 'none') return [];
  let chosen: FunctionTool[];
  if (typeof toolChoice === 'object') {
    chosen = tools.filter((t) => t.function.name === toolChoice.function.name).slice(0, 1);
  } else {
    const mentioned = mentionedTools(tools, lastUserText);
    if (toolChoice === 'required') chosen = mentioned.length > 0 ? mentioned : tools.slice(0, 1);
    else {
      const called = calledSinceLastUser(request);
      chosen = mentioned.filter((tool) => !called.has(tool.function.name));
    }
  }
  if (!request.parallelToolCalls) chosen = chosen.slice(0, 1);
  return chosen.map((tool) => ({
    name: tool.function.name,
    arguments: buildArguments(tool.function.parameters, lastUserText),
  }));
}

/** The names of the tools the assistant called after the last user message. */
function calledSinceLastUser(request: SimChatRequest): Set<string> {
  const called = new Set<string>();
  for (const message of [...request.messages].reverse()) {
    if (message.role === 'user') break;
    for (const call of message.tool_calls ?? []) called.add(call.function.name);
  }
  return called;
}

function mentionedTools(tools: readonly FunctionTool[], text: string): FunctionTool[] {
  const found: Array<{ tool: FunctionTool; at: number }> = [];
  for (const tool of tools) {
    const name = tool.function.name;
    if (name === '' || found.some((f) => f.tool.function.name === name)) continue;
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`).exec(text);
    if (match) found.push({ tool, at: match.index });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.tool);
}
