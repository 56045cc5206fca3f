// Upstream chunks for unit tests: one choice (index 0) with the delta a test is about, the rest fixed, so a test
// writes only what it checks. Recorded whole streams stay in test/fixtures/chunks.ts.
import type { ChatChunk, ChatChunkChoice, ChatUsage } from '../../core/canonical.js';
import type { ChunkEvent } from '../fixtures/chunks.js';

/** A chunk whose one choice carries this delta (and these choice fields), with usage if given. */
export function chatChunk(
  delta: ChatChunkChoice['delta'],
  extra: Partial<ChatChunkChoice> = {},
  usage?: ChatUsage,
): ChatChunk {
  return {
    id: 'chatcmpl-up',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'Qwen/Qwen3-8B',
    choices: [{ index: 0, delta, ...extra }],
    ...(usage ? { usage } : {}),
  };
}

/** The same chunk, as the canonical event that carries it. */
export function deltaEvent(
  delta: ChatChunkChoice['delta'],
  extra: Partial<ChatChunkChoice> = {},
  usage?: ChatUsage,
): ChunkEvent {
  return { type: 'chunk', chunk: chatChunk(delta, extra, usage) };
}

/** The chunk with no choices that ends a stream with its usage. */
export function usageEvent(usage: ChatUsage): ChunkEvent {
  return { type: 'chunk', chunk: { ...chatChunk({}), choices: [], usage } };
}
