import type { FinishReason } from '../../core/canonical.js';

/** How a response ended: its status, the spec's `finish_reason`, and OpenAI's `incomplete_details`. */
export interface ResponseOutcome {
  status: 'completed' | 'incomplete';
  finishReason: 'stop' | 'length' | 'content_filter';
  incompleteDetails: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

const COMPLETED: ResponseOutcome = { status: 'completed', finishReason: 'stop', incompleteDetails: null };
const CUT: ResponseOutcome = {
  status: 'incomplete',
  finishReason: 'length',
  incompleteDetails: { reason: 'max_output_tokens' },
};
const FILTERED: ResponseOutcome = {
  status: 'incomplete',
  finishReason: 'content_filter',
  incompleteDetails: { reason: 'content_filter' },
};

/** The upstream's finish_reason → the response's outcome. A turn that called tools is `completed` (spec 3.2). */
export function outcomeOf(reason: FinishReason | null | undefined): ResponseOutcome {
  switch (reason) {
    case 'length':
      return CUT;
    case 'content_filter':
      return FILTERED;
    case 'stop':
    case 'tool_calls':
    case 'function_call':
    case null:
    case undefined:
      return COMPLETED;
    default:
      return unknownReason(reason);
  }
}

/** A reason the canonical type does not list is a compile error here; one that arrives anyway ends the response normally. */
function unknownReason(_reason: never): ResponseOutcome {
  return COMPLETED;
}
