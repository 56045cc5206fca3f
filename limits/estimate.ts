// The input-token estimate the rate limiter and the credit reservation use before the call: cheap
// (one pass over the request's characters, no tokenizer, no allocation) and conservative (at or above
// the upstream's prompt_tokens for prose, code, CJK, JSON and tool definitions; bench/estimate.ts
// measures by how much). After the call both reconcile with the real count.
import type { ChatContentPart, ChatRequest } from '../core/canonical.js';

/** Letters a BPE token spans at least, on average, in a run of ASCII letters (English words: 4 to 6). */
const LETTERS_PER_TOKEN = 4;
/** Chat-template tokens around each message (role markers, separators). */
const TOKENS_PER_MESSAGE = 8;
/** The template's fixed part (the assistant prompt, a default system line). */
const TOKENS_PER_REQUEST = 10;
/** The template's preamble around tool definitions ("# Tools … <tools></tools>"). */
const TOKENS_PER_TOOL_BLOCK = 40;

export function estimateInputTokens(request: ChatRequest): number {
  let tokens = TOKENS_PER_MESSAGE * request.messages.length + TOKENS_PER_REQUEST;
  for (const message of request.messages) {
    tokens += contentTokens(message.content);
    if (message.role === 'assistant') {
      if (message.reasoning_content) tokens += estimateTextTokens(message.reasoning_content);
      for (const call of message.tool_calls ?? [])
        tokens += estimateTextTokens(call.function.name) + estimateTextTokens(call.function.arguments);
    }
  }
  if (request.tools !== undefined && request.tools.length > 0)
    tokens += TOKENS_PER_TOOL_BLOCK + estimateTextTokens(JSON.stringify(request.tools));
  return tokens;
}

/**
 * Tokens of a text, from its characters in one pass: a run of ASCII letters takes one token per
 * LETTERS_PER_TOKEN letters (rounded up); every digit, punctuation mark and symbol one (Qwen and Llama
 * split numbers into digits); a space before a word none (it joins the word's token), other
 * whitespace one per run; every other character (CJK, accented letters, emoji) one.
 */
export function estimateTextTokens(text: string): number {
  let tokens = 0;
  let letters = 0;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const isLetter = (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
    if (isLetter) {
      letters++;
      inSpace = false;
      continue;
    }
    if (letters > 0) {
      tokens += Math.ceil(letters / LETTERS_PER_TOKEN);
      letters = 0;
    }
    if (code === 32) {
      // A single space before a word joins it; a second one starts a whitespace token.
      if (inSpace) tokens++;
      inSpace = true;
      continue;
    }
    if (code === 9 || code === 10 || code === 13) {
      if (!inSpace) tokens++;
      inSpace = true;
      continue;
    }
    inSpace = false;
    // A UTF-16 surrogate pair is one character.
    if (code >= 0xd800 && code <= 0xdbff) i++;
    tokens++;
  }
  if (letters > 0) tokens += Math.ceil(letters / LETTERS_PER_TOKEN);
  return tokens;
}

function contentTokens(content: string | ChatContentPart[] | null | undefined): number {
  if (typeof content === 'string') return estimateTextTokens(content);
  let tokens = 0;
  for (const part of content ?? []) if (part.type === 'text') tokens += estimateTextTokens(part.text);
  return tokens;
}
