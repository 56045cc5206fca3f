// What a response has used, seen from its canonical events: the last usage the upstream reported (it
// comes in the last chunk; the gateway always asks for it), and the bytes of text produced so far, for
// a response that ended before any usage came (client gone, stream cut).
import type { ChatChunk, ChatUsage } from '../../proxy/canonical.js';
import type { EventStream } from '../../proxy/plugin.js';

/** UTF-8 bytes per output token when no usage came (the input estimate's ratio, limits/estimate.ts). */
const BYTES_PER_TOKEN = 3;

export class UsageWatch {
  usage: ChatUsage | undefined = undefined;
  #producedBytes = 0;

  see(chunk: ChatChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (delta.content) this.#producedBytes += Buffer.byteLength(delta.content);
      if (delta.reasoning_content) this.#producedBytes += Buffer.byteLength(delta.reasoning_content);
      else if (delta.reasoning) this.#producedBytes += Buffer.byteLength(delta.reasoning);
      for (const call of delta.tool_calls ?? []) {
        if (call.function?.name) this.#producedBytes += Buffer.byteLength(call.function.name);
        if (call.function?.arguments) this.#producedBytes += Buffer.byteLength(call.function.arguments);
      }
    }
  }

  /** Output tokens: the upstream's completion_tokens (never max_tokens), else an estimate of what was produced. */
  outputTokens(): number {
    return this.usage?.completion_tokens ?? Math.ceil(this.#producedBytes / BYTES_PER_TOKEN);
  }
}

/**
 * Passes the events through, watching them, and calls `settle` once when the response is over: at its
 * end, when it broke, or when the client went away (the consumer's return()). `settle` is awaited, so a
 * non-streamed answer's headers, written after the last event, show the settled counts.
 */
export async function* watchUsage(events: EventStream, settle: (watch: UsageWatch) => Promise<void>): EventStream {
  const watch = new UsageWatch();
  try {
    for await (const event of events) {
      if (event.type === 'chunk') watch.see(event.chunk);
      yield event;
    }
  } finally {
    await settle(watch);
  }
}
