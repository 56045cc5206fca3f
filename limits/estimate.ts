// The input-token estimate the rate limiter and the credit reservation use before the call: cheap
// (one pass over the request's strings, no tokenizer) and conservative (meant to be at or above the
// upstream's prompt_tokens for ordinary text). After the call both reconcile with the real count.
import type { ChatContentPart, ChatRequest } from '../proxy/canonical.js';

/** UTF-8 bytes per token the estimate assumes: BPE tokenizers average about 4 for English, more for code. */
const BYTES_PER_TOKEN = 3;
/** Chat-template tokens around each message (role markers, separators). */
const TOKENS_PER_MESSAGE = 5;
/** The template's fixed part (the assistant prompt, a default system line). */
const TOKENS_PER_REQUEST = 10;

export function estimateInputTokens(request: ChatRequest): number {
  let bytes = 0;
  for (const message of request.messages) {
    bytes += contentBytes(message.content);
    if (message.role === 'assistant') {
      if (message.reasoning_content) bytes += Buffer.byteLength(message.reasoning_content);
      for (const call of message.tool_calls ?? []) bytes += Buffer.byteLength(call.function.name) + Buffer.byteLength(call.function.arguments);
    }
  }
  if (request.tools !== undefined && request.tools.length > 0) bytes += Buffer.byteLength(JSON.stringify(request.tools));
  return Math.ceil(bytes / BYTES_PER_TOKEN) + TOKENS_PER_MESSAGE * request.messages.length + TOKENS_PER_REQUEST;
}

function contentBytes(content: string | ChatContentPart[] | null | undefined): number {
  if (typeof content === 'string') return Buffer.byteLength(content);
  let bytes = 0;
  for (const part of content ?? []) if (part.type === 'text') bytes += Buffer.byteLength(part.text);
  return bytes;
}
