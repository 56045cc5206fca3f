// From the planned answer to what is sent: the answer is cut where vLLM would stop generating
// (end-of-turn token → `stop`; a stop string → `stop` with stop_reason; max_tokens → `length`)
// and each generated token gets the delta it streams.
import type { PlannedAnswer } from './answer.js';
import { detokenizePieces } from './detokenizer.js';
import { EOS_TOKEN_ID } from './qwen3-prompt.js';
import { toolCallDeltas, type DeltaToolCall } from './tool-deltas.js';

export type SimFinishReason = 'stop' | 'length' | 'tool_calls';

/** What one token streams: text, tool-call fragments, or nothing (tool-call markup). */
export type StepDelta = { content: string } | { tool_calls: DeltaToolCall[] } | null;

export interface FullToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface Generation {
  /** The generated token ids; completion_tokens is their count. */
  ids: number[];
  /** One per generated token. */
  deltas: StepDelta[];
  finishReason: SimFinishReason;
  /** The matched stop string, else null. */
  stopReason: string | null;
  /** The non-streaming message content (null when the answer is tool calls). */
  content: string | null;
  toolCalls: FullToolCall[];
}

export interface GenerationLimits {
  maxTokens: number;
  stop: readonly string[];
  includeStopStr: boolean;
}

export function generate(answer: PlannedAnswer, limits: GenerationLimits): Generation {
  const all = detokenizePieces(answer.ids);
  const stops = answer.kind === 'text' ? limits.stop.filter((s) => s.length > 0) : [];
  let end = answer.ids.length;
  let finishReason: SimFinishReason = 'stop';
  let stopReason: string | null = null;
  let cutAt: number | undefined;
  let text = '';
  for (let i = 0; i < answer.ids.length; i++) {
    const before = text.length;
    text += all[i] ?? '';
    end = i + 1;
    if (answer.ids[i] === EOS_TOKEN_ID) break;
    const hit = findStop(text, before, stops);
    if (hit) {
      stopReason = hit.stop;
      cutAt = limits.includeStopStr ? hit.index + hit.stop.length : hit.index;
      break;
    }
    if (end >= limits.maxTokens) {
      finishReason = 'length';
      break;
    }
  }
  const ids = answer.ids.slice(0, end);
  // A cut by length may end inside a character: detokenize again so it ends as vLLM's would.
  let pieces = finishReason === 'length' ? detokenizePieces(ids) : all.slice(0, end);
  if (cutAt !== undefined) pieces = clip(pieces, cutAt);
  const visible = pieces.join('');
  if (answer.kind === 'text') {
    return {
      ids,
      deltas: pieces.map((content) => ({ content })),
      finishReason,
      stopReason,
      content: visible,
      toolCalls: [],
    };
  }
  const deltas = toolCallDeltas(pieces, answer.calls);
  // Like vLLM's hermes parser: calls cut short are not calls; the raw text is the content.
  if (visible.length < answer.text.length) {
    return { ids, deltas, finishReason: 'length', stopReason: null, content: visible, toolCalls: [] };
  }
  const toolCalls = answer.calls.map((c): FullToolCall => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  return { ids, deltas, finishReason: 'tool_calls', stopReason: null, content: null, toolCalls };
}

/** vLLM's check: the first stop string (in request order) found in the text the new token touched. */
function findStop(text: string, before: number, stops: readonly string[]): { stop: string; index: number } | undefined {
  for (const stop of stops) {
    const index = text.indexOf(stop, Math.max(0, before - stop.length + 1));
    if (index >= 0) return { stop, index };
  }
  return undefined;
}

/** The pieces with everything from character `at` on removed. */
function clip(pieces: readonly string[], at: number): string[] {
  let offset = 0;
  return pieces.map((piece) => {
    const kept = piece.slice(0, Math.max(0, at - offset));
    offset += piece.length;
    return kept;
  });
}
