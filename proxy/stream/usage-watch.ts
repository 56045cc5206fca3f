// What an answer has used, seen from its events: the last usage they carried (the upstream sends its
// total last, and the gateway always asks for it; vLLM's running usage comes on every chunk), and the
// bytes of output produced so far, for an answer that ended before any usage came (client gone,
// stream cut). One watch per observed answer (proxy/stream/observe.ts), shared by the plugins that charge it.
import type { ChatChunk, ChatCompletion, ChatUsage, ResponseEvent } from '../../core/canonical.js';

/** UTF-8 bytes per output token when the gateway counts output itself (the input estimate's ratio, limits/estimate.ts). */
export const BYTES_PER_TOKEN = 3;

export class UsageWatch {
  /** The last usage seen, if any. */
  usage: ChatUsage | undefined = undefined;
  /** UTF-8 bytes of text, reasoning and tool calls produced so far. */
  producedBytes = 0;

  see(event: ResponseEvent): void {
    if (event.type === 'chunk') {
      if (event.chunk.usage) this.usage = event.chunk.usage;
      this.producedBytes += chunkBytes(event.chunk);
    } else if (event.type === 'completion') {
      if (event.completion.usage) this.usage = event.completion.usage;
      this.producedBytes += completionBytes(event.completion);
    }
  }

  /** Output tokens: the upstream's completion_tokens (never max_tokens), else the produced bytes at BYTES_PER_TOKEN. */
  outputTokens(): number {
    return this.usage?.completion_tokens ?? Math.ceil(this.producedBytes / BYTES_PER_TOKEN);
  }
}

/** The usage an event carries: a chunk's or a completion's (search events carry none). */
export function usageOf(event: ResponseEvent): ChatUsage | undefined {
  if (event.type === 'chunk') return event.chunk.usage ?? undefined;
  if (event.type === 'completion') return event.completion.usage ?? undefined;
  return undefined;
}

/** UTF-8 bytes of text, reasoning, tool-call names and arguments in a chunk. */
export function chunkBytes(chunk: ChatChunk): number {
  let bytes = 0;
  for (const choice of chunk.choices) {
    const delta = choice.delta;
    if (delta.content) bytes += Buffer.byteLength(delta.content);
    if (delta.reasoning_content) bytes += Buffer.byteLength(delta.reasoning_content);
    else if (delta.reasoning) bytes += Buffer.byteLength(delta.reasoning);
    for (const call of delta.tool_calls ?? []) {
      if (call.function?.name) bytes += Buffer.byteLength(call.function.name);
      if (call.function?.arguments) bytes += Buffer.byteLength(call.function.arguments);
    }
  }
  return bytes;
}

/** The same count over a whole completion. */
export function completionBytes(completion: ChatCompletion): number {
  let bytes = 0;
  for (const choice of completion.choices) {
    const message = choice.message;
    if (message.content) bytes += Buffer.byteLength(message.content);
    if (message.reasoning_content) bytes += Buffer.byteLength(message.reasoning_content);
    for (const call of message.tool_calls ?? [])
      bytes += Buffer.byteLength(call.function.name) + Buffer.byteLength(call.function.arguments);
  }
  return bytes;
}
