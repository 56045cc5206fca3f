// What llama-server makes of the tokens the model generates (generation.ts): the deltas each token
// streams and the final message. Its chat parser (common/chat-auto-parser-generator.cpp, with the tags
// it finds in Qwen3's template) differs from vLLM's parsers:
// - reasoning: `<think>` and one newline after it are markup; the text up to `</think>` is reasoning
//   (the newline before the tag included); `</think>` and up to two newlines after it are markup, so
//   the content starts with the answer itself;
// - tool calls: a call's id, type and name go out in one delta with the first piece of its arguments
//   (the parser sees the call once its arguments begin), or at the end; the id is 32 random-looking
//   letters and digits;
// - a trailing assistant message (prefill) that the server continues is part of the parsed text, so it
//   comes back at the start of the content: in the first token's delta, and in the message;
// - tokens that add no text (the end-of-turn token, markup, half a character) stream nothing.
import type { Generation, SimFinishReason } from './generation.js';

export interface LlamaToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments?: string };
}

export type LlamaDelta = { reasoning_content: string } | { content: string } | { tool_calls: [LlamaToolCallDelta] };

export interface LlamaToolCall {
  type: 'function';
  function: { name: string; arguments: string };
  id: string;
}

export interface LlamaAnswer {
  /** One entry per generated token: the deltas it streams, in order (often none). */
  steps: LlamaDelta[][];
  /** The message: the echoed prefill and the text after the thinking ('' when there is none). */
  content: string;
  /** '' without thinking. */
  reasoning: string;
  toolCalls: LlamaToolCall[];
  finishReason: SimFinishReason;
}

export function llamaAnswer(
  gen: Generation,
  prefill: string | null,
  toolCallId: (index: number) => string,
): LlamaAnswer {
  let content = '';
  let reasoning = '';
  let thinking = false;
  let thought = false;
  const unnamed = new Map<number, string>();
  const header = (index: number, name: string, args: string): LlamaDelta => ({
    tool_calls: [
      { index, id: toolCallId(index), type: 'function', function: args ? { name, arguments: args } : { name } },
    ],
  });
  const last = gen.deltas.length - 1;
  const steps = gen.deltas.map((delta, i): LlamaDelta[] => {
    const out: LlamaDelta[] = [];
    let text = i === 0 ? (prefill ?? '') : '';
    if (delta !== null && 'reasoning' in delta) {
      // The newline after `<think>` is the tag's.
      const piece = thinking ? delta.reasoning : delta.reasoning.replace(/^\n/, '');
      thinking = true;
      if (piece) {
        reasoning += piece;
        out.push({ reasoning_content: piece });
      }
    } else if (delta !== null && 'content' in delta) {
      // Up to two newlines after `</think>` are the tag's.
      text += thinking && !thought ? delta.content.replace(/^\n{1,2}/, '') : delta.content;
      if (thinking) thought = true;
    }
    if (text) {
      content += text;
      out.unshift({ content: text });
    }
    if (delta !== null && 'tool_calls' in delta) {
      for (const call of delta.tool_calls) {
        if (call.function.name !== undefined) unnamed.set(call.index, call.function.name);
        const args = call.function.arguments;
        if (!args) continue;
        const name = unnamed.get(call.index);
        unnamed.delete(call.index);
        out.push(
          name === undefined
            ? { tool_calls: [{ index: call.index, function: { arguments: args } }] }
            : header(call.index, name, args),
        );
      }
    }
    // At the end of the answer the parser names the calls it has not named yet.
    if (i === last) for (const [index, name] of unnamed) out.push(header(index, name, ''));
    return out;
  });
  return {
    steps,
    content,
    reasoning,
    toolCalls: gen.toolCalls.map((call, index) => ({
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
      id: toolCallId(index),
    })),
    finishReason: gen.finishReason,
  };
}
