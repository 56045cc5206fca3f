// Thinking, as Qwen3 does it and vLLM's reasoning parser (`--reasoning-parser qwen3`) hands it out
// (README "Reasoning"): with the sim's `reasoningParser` on and thinking not switched off
// (`chat_template_kwargs.enable_thinking: false`), the model first writes `<think>\nTEXT\n</think>\n\n`.
// TEXT is the rest of the last user message's first `think: ` line, else PRNG words.
import type { SimChatRequest } from './chat-types.js';
import { encode } from './qwen3-prompt.js';
import { wordTokens } from './words.js';

/** `<think>` and `</think>`: added tokens of Qwen3's vocabulary; the parser streams neither. */
export const THINK_START_ID = 151667;
export const THINK_END_ID = 151668;

export const THINK_PREFIX = 'think: ';

/** Word tokens of a reasoning that no `think:` line dictates. */
const REASONING_WORDS = 8;

const THINK_LINE = /^think: (.*)$/m;

/** Whether the model thinks before answering: the template's default, unless the request switches it off. */
export function thinks(request: SimChatRequest): boolean {
  return request.chatTemplateKwargs.enable_thinking !== false;
}

/** The last user message's text without its `think:` lines: what the other rules read. */
export function withoutThinkLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.startsWith(THINK_PREFIX))
    .join('\n');
}

/** The token ids of the thinking part of the answer: `<think>\nTEXT\n</think>\n\n`. */
export function reasoningTokens(userText: string, seed: number): number[] {
  const dictated = THINK_LINE.exec(userText)?.[1];
  // Another seed than the answer's words, so the two do not start alike.
  const text = dictated !== undefined ? encode(dictated) : wordTokens((seed ^ 0x5bd1e995) >>> 0, REASONING_WORDS);
  return [THINK_START_ID, ...encode('\n'), ...text, ...encode('\n'), THINK_END_ID, ...encode('\n\n')];
}
