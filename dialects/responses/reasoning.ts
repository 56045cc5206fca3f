// The responses dialect's reasoning: the client's switch (`reasoning.effort`) as the canonical request's
// `enable_thinking`, and the model's reasoning as `reasoning` output items (OpenAI's and Open Responses'
// shape: `{type:'reasoning', id, summary: [], content: [{type:'reasoning_text', text}]}`).
import type { JsonObject } from '../../core/canonical.js';
import type { ResponseContext } from './response-object.js';
import type { OutputReasoning } from './types.js';

/**
 * An on/off switch is all an open model's template has: `none` and `minimal` (the fastest answer) turn
 * thinking off, any other effort on; no effort leaves the upstream's default.
 */
export function thinkingSwitch(reasoning: JsonObject | null | undefined): boolean | undefined {
  const effort = reasoning?.effort;
  if (typeof effort !== 'string') return undefined;
  return effort !== 'none' && effort !== 'minimal';
}

/** The n-th reasoning item's id in a response (the stream and the body give the same). */
export const reasoningItemId = (context: ResponseContext, n: number): string => `rs_${context.id}_${n}`;

export function reasoningItem(id: string, text: string): OutputReasoning {
  return { type: 'reasoning', id, summary: [], content: [{ type: 'reasoning_text', text }] };
}
