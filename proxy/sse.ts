// Server-sent events, read and written in one place: every dialect encoder and the upstream reader use these.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One SSE frame: an optional `event:` line, a `data:` line, and the blank line that ends it. */
export function sseFrame(event: string | null, data: string): string {
  return event === null ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}

export class SseTooLargeError extends Error {
  override name = 'SseTooLargeError';
}

/**
 * Parses an SSE byte stream into messages, lazily: the source is read only as fast as the consumer
 * asks, so backpressure reaches the upstream socket. A message larger than `maxEventBytes` is an error.
 */
export async function* readSse(source: AsyncIterable<Uint8Array>, maxEventBytes: number): AsyncGenerator<EventSourceMessage> {
  const decoder = new TextDecoder();
  const ready: EventSourceMessage[] = [];
  let pendingBytes = 0;
  const parser = createParser({
    onEvent(message) {
      ready.push(message);
      pendingBytes = 0;
    },
  });
  for await (const bytes of source) {
    pendingBytes += bytes.length;
    parser.feed(decoder.decode(bytes, { stream: true }));
    if (pendingBytes > maxEventBytes) throw new SseTooLargeError(`an event exceeded ${maxEventBytes} bytes`);
    for (let i = 0; i < ready.length; i++) yield ready[i]!;
    ready.length = 0;
  }
  parser.feed(decoder.decode());
  for (const message of ready) yield message;
}
