// Which stop string ended an answer, as the server says it. The canonical form is vLLM's `stop_reason`
// (the string, or a stop token's id); SGLang says `matched_stop` (a string for a stop string, a number
// for a stop token), which becomes `stop_reason` when it is a string. llama-server, TGI, Ollama and OpenAI
// say neither: the gateway matches the stop strings itself there (stop-matcher.ts).
import type { ChatChunk } from '../../core/canonical.js';

/** A choice as the upstream sent it: `stop_reason`, `matched_stop`, either or neither, unchecked. */
interface ReportedStop {
  stop_reason?: unknown;
  matched_stop?: unknown;
}

/** The stop string or token that ended the choice, in the canonical form; undefined when the server names none. */
export function reportedStop(choice: object): string | number | undefined {
  const { stop_reason: stopReason, matched_stop: matchedStop } = choice as ReportedStop;
  if (typeof stopReason === 'string' || typeof stopReason === 'number') return stopReason;
  return typeof matchedStop === 'string' ? matchedStop : undefined;
}

/** Each choice of the chunk with SGLang's `matched_stop` read into `stop_reason` (and dropped). */
export function readMatchedStop(chunk: ChatChunk): void {
  for (const choice of chunk.choices) {
    const carrier = choice as typeof choice & ReportedStop;
    if (carrier.matched_stop === undefined) continue;
    const stop = reportedStop(carrier);
    delete carrier.matched_stop;
    if (stop !== undefined) choice.stop_reason = stop;
  }
}
