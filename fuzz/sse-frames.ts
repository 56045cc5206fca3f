// Reads a whole server-sent event stream into frames, as a client would (the fuzzer's own reader, so the
// oracle does not trust the gateway's writer). Comment lines (`:`) are skipped; `data` lines are joined.

export interface Frame {
  /** The `event:` name, or undefined for a data-only frame. */
  event: string | undefined;
  data: string;
}

export function parseFrames(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'event') event = value;
      else if (name === 'data') data.push(value);
    }
    if (event !== undefined || data.length > 0) frames.push({ event, data: data.join('\n') });
  }
  return frames;
}
