// The message dialect's thinking: the client's switch (`thinking: {type: enabled|adaptive|disabled}`) as
// the canonical request's `enable_thinking`, and thinking blocks passed back in assistant turns. A signed
// block goes to the model again as that turn's `reasoning_content` (Qwen3's template keeps it within the
// current tool loop) and is listed for the core to verify (proxy/exchange/thinking-replay.ts); an unsigned one is
// dropped, as is `redacted_thinking`, which this gateway never writes.
import type { ReplayedThinking } from '../../core/canonical.js';
import type { ContentBlock, MessagesRequest, ThinkingBlock } from './types.js';

/** On for `enabled` and `adaptive` (the budget is not a switch the model has; max_tokens bounds it), off for `disabled`. */
export function thinkingSwitch(thinking: MessagesRequest['thinking']): boolean | undefined {
  return thinking === undefined ? undefined : thinking.type !== 'disabled';
}

/** The text a replayed thinking block gives back to the model ('' for none), its signature listed for verification. */
export function replayedThinking(block: ContentBlock, param: string, replay: ReplayedThinking[]): string {
  if (block.type !== 'thinking') return '';
  const { thinking, signature } = block as ThinkingBlock;
  if (signature === undefined || signature === '') return '';
  replay.push({ param, thinking, signature });
  return thinking;
}
