// The text Qwen3 emits for tool calls (hermes format, the one its chat template teaches):
//   <tool_call>\n{"name": NAME, "arguments": ARGS}\n</tool_call>
// several calls joined by "\n". The layout records where each call's name and arguments sit in
// that text, so the streamer can turn token pieces into tool-call deltas.
import { randomBytes } from 'node:crypto';
import { pythonJson } from './python-json.js';
import type { PlannedCall } from './tool-plan.js';

export interface ToolCallLayout {
  /** vLLM's tool call id: `chatcmpl-tool-` + 32 hex digits. */
  id: string;
  name: string;
  /** The arguments as vLLM's parser returns them: Python-style JSON. */
  arguments: string;
  /** Offset just past the name's closing quote: the name is complete once a token reaches it. */
  nameEnd: number;
  argsStart: number;
  argsEnd: number;
}

export function toolCallText(calls: readonly PlannedCall[]): { text: string; layouts: ToolCallLayout[] } {
  let text = '';
  const layouts: ToolCallLayout[] = [];
  for (const call of calls) {
    if (text) text += '\n';
    const args = pythonJson(call.arguments);
    text += `<tool_call>\n{"name": "${call.name}"`;
    const nameEnd = text.length;
    text += ', "arguments": ';
    const argsStart = text.length;
    text += args;
    const argsEnd = text.length;
    text += '}\n</tool_call>';
    layouts.push({
      id: `chatcmpl-tool-${randomBytes(16).toString('hex')}`,
      name: call.name,
      arguments: args,
      nameEnd,
      argsStart,
      argsEnd,
    });
  }
  return { text, layouts };
}
