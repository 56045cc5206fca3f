// llama-server's slots, and what one request can have of its context. llama-server runs `total_slots`
// answers at once (GET /props). With its default `-np auto` (4 slots) the KV cache is unified: the
// `n_ctx` it reports is one pool shared by every slot, so four answers at once get about n_ctx / 4 each,
// and an answer that needs more ends mid-stream with "Context size has been exceeded" (research I3).
// With `-np N --no-kv-unified` (or `-np N` alone, where unified is off) n_ctx is already each slot's,
// but /props does not say which: the gateway assumes the default, shared, and bounds a request to
// n_ctx / total_slots; the operator who split the cache sets `model.max_context_tokens` instead.
import { isRecord, type UpstreamReport } from './upstream-report.js';

/** Beyond this a slot count is not one (llama-server's HTTP pool has n_parallel + 4 threads). */
const MAX_SLOTS = 4096;

/** `total_slots` of GET /props, when it is a sane count. */
export function slotCount(report: UpstreamReport): number | undefined {
  const slots = isRecord(report.props) ? report.props.total_slots : undefined;
  return typeof slots === 'number' && Number.isSafeInteger(slots) && slots >= 1 && slots <= MAX_SLOTS
    ? slots
    : undefined;
}

export interface SharedContext {
  slots: number;
  /** The pool's n_ctx, as reported. */
  poolTokens: number;
  /** What one request may use so that every slot's answer fits at once. */
  perRequest: number;
}

/** The share of one request when the KV pool of `poolTokens` is shared by more than one slot; undefined otherwise. */
export function sharedContext(report: UpstreamReport, poolTokens: number): SharedContext | undefined {
  const slots = slotCount(report);
  if (slots === undefined || slots === 1) return undefined;
  return { slots, poolTokens, perRequest: Math.max(16, Math.floor(poolTokens / slots)) };
}
