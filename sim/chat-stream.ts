// The streaming answer, chunk for chunk as vLLM sends it (fields it leaves unset are absent):
// a role chunk {role:'assistant', content:''}, then one chunk per generated token (tokens of
// tool-call markup send none), the last carrying finish_reason and stop_reason; with include_usage
// a usage chunk with `choices: []`; then `data: [DONE]`. With continuous usage stats every chunk
// carries the running usage. The role chunk and the first token leave after the TTFT, the next
// tokens one ITL apart; chunks due at the same moment go out in one write.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { cutConnection } from './cut-connection.js';
import type { SimFault } from './faults.js';
import type { Generation, StepDelta } from './generation.js';
import { delay, drained, untilAborted } from './http-io.js';
import { usage, type ResponseMeta, type Usage } from './usage.js';

export interface StreamChunk {
  /** The SSE line(s), `data: …\n\n`. */
  data: string;
  /** Wait before sending it. */
  delayMs: number;
}

interface StreamChoice {
  index: number;
  delta:
    | Exclude<StepDelta, null>
    | { reasoning_content: string }
    | { role: 'assistant'; content: string }
    | Record<string, never>;
  logprobs: null;
  finish_reason: string | null;
  stop_reason?: string | null;
}

interface ChunkBody {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: StreamChoice[];
  usage?: Usage;
}

export interface StreamOptions {
  includeUsage: boolean;
  continuousUsage: boolean;
  ttftMs: number;
  itlMs: number;
}

export function streamChunks(gen: Generation, meta: ResponseMeta, options: StreamOptions): StreamChunk[] {
  const sse = (body: ChunkBody | string): string =>
    `data: ${typeof body === 'string' ? body : JSON.stringify(body)}\n\n`;
  const chunk = (choices: StreamChoice[], completionTokens: number): ChunkBody => {
    const body: ChunkBody = {
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices,
    };
    if (options.continuousUsage) body.usage = usage(meta.promptTokens, completionTokens, undefined, meta.usageOverride);
    return body;
  };
  const out: StreamChunk[] = [];
  const role: StreamChoice = {
    index: 0,
    delta: { role: 'assistant', content: '' },
    logprobs: null,
    finish_reason: null,
  };
  out.push({ data: sse(chunk([role], 0)), delayMs: options.ttftMs });
  let lastSent = 0;
  const last = gen.deltas.length - 1;
  gen.deltas.forEach((delta, i) => {
    if (delta === null && i < last) return;
    const choice: StreamChoice = { index: 0, delta: wireDelta(delta, meta), logprobs: null, finish_reason: null };
    if (i === last) {
      choice.finish_reason = gen.finishReason;
      choice.stop_reason = gen.stopReason;
    }
    // The first token leaves with the role chunk; a token that sent nothing still took its ITL.
    out.push({ data: sse(chunk([choice], i + 1)), delayMs: options.itlMs * (i - lastSent) });
    lastSent = i;
  });
  if (options.includeUsage) {
    const final: ChunkBody = {
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices: [],
    };
    final.usage = usage(meta.promptTokens, gen.ids.length, meta.cachedTokens, meta.usageOverride);
    out.push({ data: sse(final), delayMs: 0 });
  }
  out.push({ data: sse('[DONE]'), delayMs: 0 });
  return out;
}

/** A step's delta under the server's name for reasoning. */
function wireDelta(delta: StepDelta, meta: ResponseMeta): StreamChoice['delta'] {
  if (delta === null) return {};
  if ('reasoning' in delta && meta.reasoningField === 'reasoning_content')
    return { reasoning_content: delta.reasoning };
  return delta;
}

const MAX_BATCH = 64;

/** Writes the chunks with their delays, honouring backpressure and faults; true when complete. */
export async function writeStream(
  res: ServerResponse,
  socket: Socket,
  chunks: readonly StreamChunk[],
  fault: SimFault,
  signal: AbortSignal,
  /** What the `error` fault sends after its chunks, the stream's end included (the server's shape). */
  errorEvent = '',
): Promise<boolean> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  res.flushHeaders();
  const broken = fault.kind === 'cut' || fault.kind === 'stall' || fault.kind === 'error';
  // A cut, stall or error never lets [DONE] through.
  const limit = broken ? Math.min(fault.afterChunks ?? 0, chunks.length - 1) : chunks.length;
  let i = 0;
  while (i < limit) {
    const first = chunks[i];
    if (!first || !(await delay(first.delayMs, signal))) return false;
    // Chunks due together leave in one write, a bounded batch at a time so backpressure still bites.
    let data = first.data;
    const batchEnd = i + MAX_BATCH;
    for (i++; i < limit && i < batchEnd && chunks[i]?.delayMs === 0; i++) data += chunks[i]?.data ?? '';
    if (!res.write(data) && !(await drained(res, signal))) return false;
  }
  if (fault.kind === 'cut') {
    cutConnection(socket);
    return false;
  }
  if (fault.kind === 'stall') {
    await untilAborted(signal);
    return false;
  }
  if (fault.kind === 'error') {
    res.end(errorEvent);
    return false;
  }
  res.end();
  return true;
}
