import {
  isChatRequestField,
  type ChatMessage,
  type ChatRequest,
  type ChatRequestField,
  type JsonObject,
} from '../../core/canonical.js';
import type { DecodedRequest } from '../../core/dialect.js';
import { GatewayError } from '../../core/errors.js';
import { quoted } from '../../core/printable.js';
import { CALL_PREFIX, upstreamToolCallId } from '../../core/tool-call-ids.js';
import { markPrefill } from '../../core/prefill.js';
import { compileValidator, withMaxima } from '../../core/validator.js';
import schema from '../../schemas/chat-request.json' with { type: 'json' };
import type { RequestedServiceTier } from '../../core/service-tier.js';
import { servedModelCheck } from '../served-model.js';

export interface ChatDecodeOptions {
  modelId: string;
  /** More ids a request may name for the model (`model.aliases`). */
  modelAliases?: readonly string[];
  /** The largest max_tokens / max_completion_tokens a request may ask for: the model's context. */
  maxOutputTokens: number;
}

/** What the chat encoders need of the client's request: its `stream_options`. */
export interface ChatEcho {
  /** The client asked for `stream_options.include_usage`. */
  includeUsage: boolean;
  /** The client asked for `stream_options.continuous_usage_stats` (vLLM's running usage on every chunk). */
  continuousUsage: boolean;
  /** The client sent `service_tier`: every answer object says the tier served (as it does anyway for a tier other than `default`). */
  tierAsked: boolean;
}

/** Compiles the validator once; the returned decoder validates a chat-completions body and returns the canonical request: nearly the identity. */
export function createChatDecoder(options: ChatDecodeOptions): (body: unknown) => DecodedRequest<ChatEcho> {
  const limit = options.maxOutputTokens;
  const validate = compileValidator<ChatBody>(withMaxima(schema, { max_tokens: limit, max_completion_tokens: limit }));
  const checkModel = servedModelCheck(options.modelId, 'openai', options.modelAliases);
  return (body) => {
    checkModel(body);
    refuseServerTools(body);
    const request = validate(body);
    const streamOptions = request.stream_options;
    return {
      request: canonical(request),
      echo: {
        includeUsage: streamOptions?.include_usage === true,
        continuousUsage: streamOptions?.continuous_usage_stats === true,
        tierAsked: request.service_tier !== undefined && request.service_tier !== null,
      },
    };
  };
}

/** A chat-completions body as its schema checks it: the canonical fields (any may be null), and the client's others. */
type ChatBody = { [Field in ChatRequestField]?: ChatRequest[Field] | null } & Pick<
  ChatRequest,
  'model' | 'messages'
> & {
    max_completion_tokens?: number | null;
    enable_thinking?: boolean | null;
    service_tier?: RequestedServiceTier | null;
    [field: string]: unknown;
  };

/**
 * A chat body's fields that are not passed on as the client's own: those the decoder reads (into the canonical
 * fields, or `gateway`), and the gateway-side ones a client cannot set (its prefill, cache marks, signed thinking).
 */
const NOT_FORWARDED = [
  'max_completion_tokens',
  'enable_thinking',
  'response_format_param',
  'prefill',
  'cache_blocks',
  'thinking_replay',
  'service_tier',
];

function canonical(body: ChatBody): ChatRequest {
  const fields: Partial<ChatRequest> = {};
  const extra: JsonObject = {};
  // OpenAI reads a null field as one not set; so does everything after the decoder (no top-level nulls).
  for (const [field, value] of Object.entries(body)) {
    if (value === null) continue;
    if (isChatRequestField(field)) Object.assign(fields, { [field]: value });
    else extra[field] = value;
  }
  // In the client's order, as the upstream gets them.
  const canonical: ChatRequest = { ...fields, model: body.model, messages: body.messages };
  checkToolChoice(canonical);
  const {
    max_completion_tokens: maxCompletionTokens,
    enable_thinking: enableThinking,
    response_format_param: formatParam,
    prompt_cache_key: conversationKey,
    service_tier: serviceTier,
  } = extra;
  for (const field of NOT_FORWARDED) delete extra[field];
  if (Object.keys(extra).length > 0) canonical.extra_fields = extra;
  // The thinking switch: `enable_thinking` (Qwen's own API) as it is, else OpenAI's `reasoning_effort` (none and minimal: off).
  const effort = canonical.reasoning_effort;
  if (typeof enableThinking === 'boolean') (canonical.gateway ??= {}).enable_thinking = enableThinking;
  else if (effort !== undefined) (canonical.gateway ??= {}).enable_thinking = effort !== 'none' && effort !== 'minimal';
  if (typeof formatParam === 'string') (canonical.gateway ??= {}).response_format_param = formatParam;
  // OpenAI's name for the conversation: it stays a client field (sent when `upstream.extra_fields` names it).
  if (typeof conversationKey === 'string') (canonical.gateway ??= {}).conversation_key = conversationKey;
  // Checked by the schema; resolved by the meter, never sent upstream as it is.
  if (typeof serviceTier === 'string') (canonical.gateway ??= {}).service_tier = serviceTier as RequestedServiceTier;
  if (canonical.max_tokens === undefined && typeof maxCompletionTokens === 'number')
    canonical.max_tokens = maxCompletionTokens;
  // vLLM refuses a tool_choice without tools; without tools there is nothing to choose.
  if (canonical.tools === undefined || canonical.tools.length === 0) delete canonical.tool_choice;
  // Open models' chat templates know `system`, not OpenAI's `developer` (Qwen3's drops it silently).
  if (canonical.messages.some((message) => message.role === 'developer')) {
    canonical.messages = canonical.messages.map((message) =>
      message.role === 'developer' ? { ...message, role: 'system' } : message,
    );
  }
  canonical.messages = canonical.messages.map(withUpstreamCallIds);
  // A trailing assistant message is continued, as vLLM's continue_final_message and llama-server do it.
  markPrefill(canonical);
  return canonical;
}

/** The tool-call ids the client got in chat's form (`call_…`) go back as the server's own (core/tool-call-ids.ts). */
function withUpstreamCallIds(message: ChatMessage): ChatMessage {
  if (message.role === 'tool')
    return { ...message, tool_call_id: upstreamToolCallId(CALL_PREFIX, message.tool_call_id) };
  if (message.role !== 'assistant' || !message.tool_calls) return message;
  return {
    ...message,
    tool_calls: message.tool_calls.map((call) => ({ ...call, id: upstreamToolCallId(CALL_PREFIX, call.id) })),
  };
}

/** Spec rule 7: no web search (nor any other non-function tool) on this endpoint. Checked before the schema to say why. */
function refuseServerTools(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const record = body as Record<string, unknown> & { tools?: unknown };
  // `web_search` and `web_search_replay` are the canonical request's gateway-side fields: a chat body must not set them.
  for (const field of ['web_search_options', 'web_search', 'web_search_replay']) {
    if (record[field] !== undefined)
      throw new GatewayError(
        'GW_ERR_REQUEST_UNSUPPORTED_TOOL',
        'Web search is not supported on /v1/chat/completions; use /v1/messages or /v1/responses with their search tool.',
        field,
      );
  }
  if (!Array.isArray(record.tools)) return;
  record.tools.forEach((tool: unknown, index) => {
    const type = typeof tool === 'object' && tool !== null ? (tool as { type?: unknown }).type : undefined;
    if (type === 'function' || type === undefined) return;
    const param = `tools[${index}].type`;
    const why =
      typeof type === 'string' && type.includes('search')
        ? 'Web search is not supported on /v1/chat/completions; use /v1/messages or /v1/responses with their search tool.'
        : `Tool type ${quoted(type)} is not supported on /v1/chat/completions; only 'function' tools are.`;
    throw new GatewayError('GW_ERR_REQUEST_UNSUPPORTED_TOOL', why, param);
  });
}

function checkToolChoice(request: ChatRequest): void {
  const choice = request.tool_choice;
  if (typeof choice !== 'object') return;
  const name = choice.function.name;
  if (!request.tools?.some((tool) => tool.function.name === name)) {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for 'tool_choice': no tool named ${quoted(name)} is in 'tools'.`,
      'tool_choice.function.name',
    );
  }
}
