import type { LimitSnapshot } from '../../core/limit-snapshot.js';
import type { ChatUsage, JsonObject } from '../../core/canonical.js';
import type { WireProfile } from '../../core/dialect.js';
import type { ServiceTier } from '../../core/service-tier.js';
import { CALL_PREFIX, clientToolCallId } from '../../core/tool-call-ids.js';
import type { ClientToolNames } from './client-tools.js';
import type { ResponseOutcome } from './outcome.js';
import { echoedReasoning, echoedSampling, echoedText, echoedTools } from './request-echo.js';
import type {
  OutputItem,
  OutputMessage,
  ResponseObjectStatus,
  ResponsesRequest,
  ResponsesUsage,
  ResponseStatus,
} from './types.js';

/** What every response object of one exchange shares. */
export interface ResponseContext {
  /** The exchange id: `resp_<id>`, `msg_<id>`, `fc_<id>_<n>` derive from it, so ids agree across events and the final body. */
  id: string;
  created: number;
  modelId: string;
  wire: WireProfile;
  /** The validated request, echoed as OpenAI echoes it (instructions, tools, sampling). */
  request: ResponsesRequest;
  /** Which client tool each mapped function name stands for (calls go back as its tool's items); none: plain functions. */
  tools?: ClientToolNames;
  /** A compaction request (compaction.ts): the answer is one `compaction` item carrying the text. */
  compaction?: boolean;
  /** Codex's limit window and balance, sent first in its stream (codex-rate-limits.ts); other clients: none. */
  codexRateLimits?: LimitSnapshot;
  /** The service tier served (the meter's; none: `default`). */
  serviceTier?: ServiceTier;
}

export interface ResponseState {
  status: ResponseObjectStatus;
  output: OutputItem[];
  usage: ResponsesUsage | null;
  /** null while in progress. */
  outcome: ResponseOutcome | null;
  /** Why the response failed (status `failed`). */
  error?: { code: string; message: string };
}

export const responseId = (context: ResponseContext): string => `resp_${context.id}`;
/** The n-th message item (a stream opens a second one only if text follows a tool call). */
export const messageItemId = (context: ResponseContext, n: number): string =>
  n === 0 ? `msg_${context.id}` : `msg_${context.id}_${n}`;
export const callItemId = (context: ResponseContext, n: number): string => `fc_${context.id}_${n}`;
/**
 * A call's id as the client sees it and answers with in `function_call_output`: the upstream's in the
 * dialect's form (`call_…`, core/tool-call-ids.ts), or one made from the response's id when it sent none.
 */
export const clientCallId = (context: ResponseContext, upstreamId: string | undefined, n: number): string =>
  clientToolCallId(CALL_PREFIX, upstreamId, `${context.id}_${n}`);

export function messageItem(
  id: string,
  text: string,
  status: ResponseStatus,
  annotations: JsonObject[] = [],
): OutputMessage {
  return { type: 'message', id, status, role: 'assistant', content: [{ type: 'output_text', text, annotations }] };
}

/** The item id of a canonical search id. */
export const searchItemId = (id: string): string => `ws_${id}`;

/** A `url_citation` of the marker that ends the text so far; indices count code points, as OpenAI's do. */
export function urlCitation(textLength: number, marker: string, url: string, title: string): JsonObject {
  return { type: 'url_citation', start_index: textLength - codePoints(marker), end_index: textLength, url, title };
}

export function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) count--;
  }
  return count;
}

/**
 * The response object (spec 2.7, docs/wire.md): OpenAI's Response in both profiles, every field of the Open
 * Responses `ResponseResource` present with its type; profile `spec` puts the spec's `created`, `output_text` and
 * `finish_reason` beside it. The non-streaming body and the `response` of the stream's events are this same object.
 */
export function responseObject(context: ResponseContext, state: ResponseState): JsonObject {
  const { request } = context;
  const openai: JsonObject = {
    id: responseId(context),
    object: 'response',
    created_at: context.created,
    status: state.status,
    background: false,
    completed_at: state.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: state.error ?? null,
    incomplete_details: state.outcome?.incompleteDetails ?? null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_tokens ?? request.max_output_tokens ?? null,
    max_tool_calls: request.max_tool_calls ?? null,
    model: context.modelId,
    output: state.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    reasoning: echoedReasoning(request),
    safety_identifier: request.safety_identifier ?? null,
    // The tier the request was served at (docs/service-tiers.md), whatever it asked for.
    service_tier: context.serviceTier ?? 'default',
    // Nothing is kept, whatever the client asked (rule 10).
    store: false,
    ...echoedSampling(request),
    text: echoedText(request),
    tool_choice: request.tool_choice ?? 'auto',
    tools: echoedTools(request),
    top_logprobs: request.top_logprobs ?? 0,
    truncation: 'disabled',
    usage: state.usage,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
  if (context.wire === 'openai') return openai;
  return {
    id: openai.id,
    object: 'response',
    created: context.created,
    model: context.modelId,
    output_text: outputText(state.output),
    status: state.status,
    finish_reason: state.outcome?.finishReason ?? null,
    ...openai,
  };
}

/** Usage in the dialect's names; total recomputed as the sum. Cached tokens are part of input_tokens, as upstream. */
export function responsesUsage(usage: ChatUsage | null | undefined): ResponsesUsage | null {
  if (!usage) return null;
  const result: ResponsesUsage = {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
  if (usage.web_search_requests !== undefined) result.web_search_requests = usage.web_search_requests;
  return result;
}

function outputText(output: OutputItem[]): string {
  let text = '';
  for (const item of output) {
    if (item.type === 'message') for (const part of item.content) text += part.text;
  }
  return text;
}
