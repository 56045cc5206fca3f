// The deterministic generation rule (README "Generation rule"), as the token ids the model
// would produce, always ending with <|im_end|>:
// 1. tool calls when the tool rule (tool-plan.ts) or the search rule (search-rule.ts) picks any, in Qwen3's <tool_call> format;
// 2. else, when the conversation ends with a web_search result: an answer citing the results (search-rule.ts);
//    else, when it ends with tool results: "Tool results: " + their contents;
// 3. else, when the last user message's words (user-words.ts) start with "echo: ": the rest of them, verbatim;
// 4. else `outputTokens` tokens of PRNG-picked words, seeded from the rendered prompt.
// With the reasoning parser on and thinking not switched off, a `<think>` part comes first (reasoning.ts),
// unless the answer continues a prefill (continue_final_message): the template closed that turn's thinking.
import type { SimChatRequest } from './chat-types.js';
import type { ChatPrompt } from './chat-prompt.js';
import { messageText } from '../prompt/template-input.js';
import { EOS_TOKEN_ID, encode } from './qwen3-prompt.js';
import { toolCallText, type ToolCallLayout } from './tool-call-text.js';
import { planSearch, SEARCH_TOOL } from './search-rule.js';
import { reasoningTokens, thinks, withoutThinkLines } from './reasoning.js';
import { planToolCalls } from './tool-plan.js';
import { userWords } from './user-words.js';
import { wordTokens } from './words.js';

export type PlannedAnswer = (
  { kind: 'text'; ids: number[] } | { kind: 'tools'; ids: number[]; text: string; calls: ToolCallLayout[] }
) & {
  /** The `<think>` part written before the answer (reasoning.ts), when the model thinks. */
  reasoning?: number[];
};

export const ECHO_PREFIX = 'echo: ';

export function planAnswer(
  request: SimChatRequest,
  prompt: ChatPrompt,
  outputTokens: number,
  reasoningParser = false,
): PlannedAnswer {
  const { messages } = request;
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const fullText = lastUser ? userWords(lastUser.content) : '';
  if (!reasoningParser) return planReply(request, prompt, outputTokens, fullText);
  // `think:` lines dictate the thinking; the answer is the same with thinking on or off.
  const answer = planReply(request, prompt, outputTokens, withoutThinkLines(fullText));
  if (thinks(request) && !request.continueFinalMessage) answer.reasoning = reasoningTokens(fullText, prompt.seed);
  return answer;
}

function planReply(request: SimChatRequest, prompt: ChatPrompt, outputTokens: number, userText: string): PlannedAnswer {
  const toolResults = trailingToolResults(request);
  let calls = planToolCalls(request, userText);
  const search = planSearch(request);
  if (search?.kind === 'call') {
    calls = [
      { name: SEARCH_TOOL, arguments: { query: search.query } },
      ...calls.filter((call) => call.name !== SEARCH_TOOL),
    ];
    if (!request.parallelToolCalls) calls = calls.slice(0, 1);
  }
  if (calls.length > 0) {
    const { text, layouts } = toolCallText(calls);
    return { kind: 'tools', ids: [...encode(text), EOS_TOKEN_ID], text, calls: layouts };
  }
  if (search?.kind === 'answer') return { kind: 'text', ids: [...encode(search.text), EOS_TOKEN_ID] };
  if (toolResults.length > 0) {
    return { kind: 'text', ids: [...encode(`Tool results: ${toolResults.join('; ')}`), EOS_TOKEN_ID] };
  }
  if (userText.startsWith(ECHO_PREFIX)) {
    return { kind: 'text', ids: [...encode(userText.slice(ECHO_PREFIX.length)), EOS_TOKEN_ID] };
  }
  return { kind: 'text', ids: [...wordTokens(prompt.seed, Math.max(0, outputTokens - 1)), EOS_TOKEN_ID] };
}

/** The contents of the tool messages that end the conversation, oldest first. */
function trailingToolResults(request: SimChatRequest): string[] {
  const results: string[] = [];
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m?.role !== 'tool') break;
    results.unshift(messageText(m.content));
  }
  return results;
}
