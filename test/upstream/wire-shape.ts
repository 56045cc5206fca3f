// The shape of a server's answer, for comparing two servers whose models say different things (the
// sim and a real llama-server with the tiny model): field names kept, the values that are protocol
// kept (finish reasons, object and error types, roles, codes, indexes), text reduced to its kind
// ('' stays '', llama-server's 32-character ids are recognised), other numbers to 'number'. A stream
// is the shapes of its chunks with runs of the same shape counted once, so it does not matter how
// many tokens each model took to say its text.

import { sseData } from '../kit/sse-reader.js';

/** Strings kept as they are. */
const PROTOCOL_STRINGS: ReadonlySet<string> = new Set(['finish_reason', 'object', 'role', 'type', 'owned_by']);

/** Numbers kept as they are. */
const PROTOCOL_NUMBERS: ReadonlySet<string> = new Set(['code', 'index']);

export function skeleton(value: unknown, key = ''): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return distinct(value.map((item) => skeleton(item, key)));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, skeleton(v, k)]));
  }
  if (typeof value === 'string') return PROTOCOL_STRINGS.has(key) ? value : textKind(value);
  if (typeof value === 'number') return PROTOCOL_NUMBERS.has(key) ? value : 'number';
  return typeof value;
}

function textKind(text: string): string {
  if (text === '') return '';
  if (/^chatcmpl-[0-9A-Za-z]{32}$/.test(text)) return 'chatcmpl-<32 alphanumerics>';
  if (/^[0-9A-Za-z]{32}$/.test(text)) return '<32 alphanumerics>';
  return 'text';
}

/** The items' shapes, each once, in order of first appearance. */
function distinct(items: unknown[]): unknown[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = JSON.stringify(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A stream's chunks as shapes, a run of equal shapes once (several content tokens are one "content" step). */
export function streamShape(chunks: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  let previous = '';
  for (const chunk of chunks) {
    const shape = skeleton(chunk);
    const key = JSON.stringify(shape);
    if (key !== previous) out.push(shape);
    previous = key;
  }
  return out;
}

/** The JSON payloads of an SSE body, and whether it ended with [DONE]. */
export function sseChunks(text: string): { chunks: unknown[]; done: boolean } {
  const data = sseData(text);
  return {
    chunks: data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as unknown),
    done: data.at(-1) === '[DONE]',
  };
}
