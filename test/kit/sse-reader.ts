// Reads server-sent events as a client does, written from the WHATWG event-stream rules and not from the gateway's
// own codec (proxy/stream/sse.ts), so a test never checks the gateway with the gateway's code. Tests, bench/ and
// fuzz/ all read streams through it.
import type { Frame } from './frames.js';

/**
 * The frames of an SSE text: lines end with CRLF, LF or CR; a blank line ends a frame; `field: value` drops one
 * space after the colon; `data` lines join with a newline; lines starting with `:` are comments; a frame with no
 * `data` line is not an event. A last frame with no blank line after it still counts (a cut stream shows its tail).
 */
export function readSse(text: string): Frame[] {
  const frames: Frame[] = [];
  let event: string | null = null;
  let data: string[] = [];
  const dispatch = (): void => {
    if (data.length > 0) frames.push({ event, data: data.join('\n') });
    event = null;
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  dispatch();
  return frames;
}

/** The frames of a fetch response's whole body. */
export async function readSseResponse(response: Response): Promise<Frame[]> {
  return readSse(await response.text());
}

/** The `data` of each frame, in order (chat's `[DONE]` included as a string). */
export function sseData(text: string): string[] {
  return readSse(text).map((frame) => frame.data);
}

/** The JSON payload of each frame, chat's `[DONE]` left out. */
export function sseJson<T = unknown>(text: string): T[] {
  return sseData(text)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as T);
}
