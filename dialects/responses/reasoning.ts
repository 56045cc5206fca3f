// The responses dialect's reasoning: the client's switch (`reasoning.effort`) as the canonical request's
// `enable_thinking`, and the model's reasoning as `reasoning` output items (OpenAI's and Open Responses'
// shape: `{type:'reasoning', id, summary: [], content: [{type:'reasoning_text', text}]}`).
import type { JsonObject } from '../../proxy/canonical.js';

/**
 * An on/off switch is all an open model's template has: `none` and `minimal` (the fastest answer) turn
 * thinking off, any other effort on; no effort leaves the upstream's default.
 */
export function thinkingSwitch(reasoning: JsonObject | null | undefined): boolean | undefined {
  const effort = reasoning?.effort;
  if (typeof effort !== 'string') return undefined;
  return effort !== 'none' && effort !== 'minimal';
}

/** A reasoning item's id, from the response's id and the item's place in the output. */
export const reasoningItemId = (responseId: string, outputIndex: number): string => `rs_${responseId}_${outputIndex}`;

export function reasoningItem(id: string, text: string): JsonObject {
  return { type: 'reasoning', id, summary: [], content: [{ type: 'reasoning_text', text }] };
}
