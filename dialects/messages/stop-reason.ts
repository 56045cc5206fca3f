import type { FinishReason } from '../../core/canonical.js';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

/**
 * The upstream's finish_reason → the message dialect's stop_reason (docs/wire.md): `tool_use` whenever a
 * tool_use block was emitted, even if the upstream said `stop`; `max_tokens` for `length`;
 * `stop_sequence` with the matched string when the upstream names one of the request's sequences.
 */
export function stopReason(
  finish: FinishReason | null | undefined,
  calledTool: boolean,
  matched: string | number | null | undefined,
  sequences: readonly string[],
): { reason: StopReason; sequence: string | null } {
  if (calledTool) return { reason: 'tool_use', sequence: null };
  if (finish === 'length') return { reason: 'max_tokens', sequence: null };
  if (typeof matched === 'string' && sequences.includes(matched)) return { reason: 'stop_sequence', sequence: matched };
  return { reason: 'end_turn', sequence: null };
}
