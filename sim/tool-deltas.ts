// Tool-call streaming the way vLLM's hermes parser (used for Qwen3) streams it: per call, once
// the name is complete, a delta with id, type and name; then the arguments' text in fragments,
// as the tokens that carry them arrive. Tokens of the surrounding markup (<tool_call>, {"name": …)
// stream nothing.
import type { ToolCallLayout } from './tool-call-text.js';

export interface DeltaToolCall {
  id?: string;
  type?: 'function';
  index: number;
  function: { name?: string; arguments: string };
}

/** One entry per token piece: the tool-call deltas it streams, or null for none. */
export function toolCallDeltas(
  pieces: readonly string[],
  calls: readonly ToolCallLayout[],
): Array<{ tool_calls: DeltaToolCall[] } | null> {
  const text = pieces.join('');
  const named = calls.map(() => false);
  let offset = 0;
  return pieces.map((piece) => {
    const from = offset;
    const to = offset + piece.length;
    offset = to;
    const out: DeltaToolCall[] = [];
    calls.forEach((call, index) => {
      // The part of this token inside the call's arguments ('' when they do not overlap).
      const args = text.slice(Math.max(from, call.argsStart), Math.min(to, call.argsEnd));
      if (!named[index] && to >= call.nameEnd) {
        named[index] = true;
        out.push({ id: call.id, type: 'function', index, function: { name: call.name, arguments: args } });
      } else if (named[index] && args) {
        out.push({ index, function: { arguments: args } });
      }
    });
    return out.length > 0 ? { tool_calls: out } : null;
  });
}
