// A stream encoder writes server-sent events; on a WebSocket each event is one message, its data.

export interface SseMessage {
  /** The `event:` name ('' when the frame has none). */
  readonly event: string;
  readonly data: string;
}

/**
 * The events in an encoder's output: whole frames (`event: NAME`, `data: …` lines, a blank line), as every
 * encoder writes them. Comment lines (keep-alives) and frames without data carry nothing and are skipped.
 */
export function sseMessages(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const frame of text.split('\n\n')) {
    if (frame === '') continue;
    let event = '';
    let data: string | undefined;
    for (const line of frame.split('\n')) {
      if (line.startsWith('data:')) {
        const value = line.slice(line.startsWith('data: ') ? 6 : 5);
        data = data === undefined ? value : `${data}\n${value}`;
      } else if (line.startsWith('event:')) {
        event = line.slice(line.startsWith('event: ') ? 7 : 6);
      }
    }
    if (data !== undefined) messages.push({ event, data });
  }
  return messages;
}
