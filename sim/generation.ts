// From the planned answer to what is sent: the answer is cut where vLLM would stop generating
// (end-of-turn token → `stop`; a stop string → `stop` with stop_reason; max_tokens → `length`)
// and each generated token gets the delta it streams. A `<think>` part first streams as reasoning,
// split off as vLLM's Qwen3 reasoning parser does.
import type { PlannedAnswer } from './answer.js';
import { detokenizePieces } from './detokenizer.js';
import { EOS_TOKEN_ID } from './qwen3-prompt.js';
import { THINK_END_ID, THINK_START_ID } from './reasoning.js';
import { toolCallDeltas, type DeltaToolCall } from './tool-deltas.js';

export type SimFinishReason = 'stop' | 'length' | 'tool_calls';

/** What one token streams: text, reasoning, tool-call fragments, or nothing (tool-call or think markup). */
export type StepDelta = { content: string } | { reasoning: string } | { tool_calls: DeltaToolCall[] } | null;

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
  /** The non-streaming message content (null when the answer is tool calls, or nothing came after the thinking). */
  content: string | null;
  /** The non-streaming reasoning (null without a `<think>` part). */
  reasoning: string | null;
  toolCalls: FullToolCall[];
}

export interface GenerationLimits {
  maxTokens: number;
  stop: readonly string[];
  includeStopStr: boolean;
}

export function generate(answer: PlannedAnswer, limits: GenerationLimits): Generation {
  if (answer.reasoning === undefined) return generateReply(answer, limits);
  const thought = think(answer.reasoning, limits.maxTokens);
  const rest = limits.maxTokens - thought.ids.length;
  if (rest <= 0) {
    return { ...thought, finishReason: 'length', stopReason: null, toolCalls: [] };
  }
  const reply = generateReply(answer, { ...limits, maxTokens: rest });
  return {
    ...reply,
    ids: [...thought.ids, ...reply.ids],
    deltas: [...thought.deltas, ...reply.deltas],
    // The parser's content is all that follows `</think>`: the "\n\n" too, even beside tool calls (hermes keeps text before them).
    content:
      thought.content === null && reply.content === null ? null : (thought.content ?? '') + (reply.content ?? ''),
    reasoning: thought.reasoning,
  };
}

/** The `<think>` part up to `maxTokens`: reasoning deltas inside it, content after `</think>`, the tags themselves stream nothing. */
function think(
  ids: readonly number[],
  maxTokens: number,
): Pick<Generation, 'ids' | 'deltas' | 'content' | 'reasoning'> {
  const kept = ids.slice(0, maxTokens);
  const pieces = detokenizePieces(kept);
  let ended = false;
  let reasoning = '';
  let content: string | null = null;
  const deltas = kept.map((id, i): StepDelta => {
    const piece = pieces[i] ?? '';
    if (id === THINK_START_ID) return null;
    if (id === THINK_END_ID) {
      ended = true;
      return null;
    }
    if (ended) {
      content = (content ?? '') + piece;
      return { content: piece };
    }
    reasoning += piece;
    return { reasoning: piece };
  });
  return { ids: kept, deltas, content, reasoning };
}

function generateReply(answer: PlannedAnswer, limits: GenerationLimits): Generation {
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
      reasoning: null,
      toolCalls: [],
    };
  }
  const deltas = toolCallDeltas(pieces, answer.calls);
  // Like vLLM's hermes parser: calls cut short are not calls; the raw text is the content.
  if (visible.length < answer.text.length) {
    return { ids, deltas, finishReason: 'length', stopReason: null, content: visible, reasoning: null, toolCalls: [] };
  }
  const toolCalls = answer.calls.map((c): FullToolCall => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  return { ids, deltas, finishReason: 'tool_calls', stopReason: null, content: null, reasoning: null, toolCalls };
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
