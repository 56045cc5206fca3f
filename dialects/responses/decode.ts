import type { DecodedRequest } from '../../core/dialect.js';
import { compileValidator, withMaxima } from '../../core/validator.js';
import schema from '../../schemas/responses-request.json' with { type: 'json' };
import { servedModelCheck } from '../served-model.js';
import { isCompactionRequest, summaryOnly } from './compaction.js';
import { thinkingSwitch } from './reasoning.js';
import { refuseUnsupported } from './refuse.js';
import { responsesToChat } from './to-chat.js';
import type { ResponsesRequest } from './types.js';

export interface ResponsesDecodeOptions {
  modelId: string;
  /** More ids a request may name for the model (`model.aliases`). */
  modelAliases?: readonly string[];
  /** `dialects.responses.function_tools`: function tools, function_call and function_call_output items allowed. */
  functionTools: boolean;
  /** The largest max_output_tokens / max_tokens a request may ask for: the model's context. */
  maxOutputTokens: number;
}

/**
 * Compiles the validator once; the returned decoder validates a responses body (400 in the chat shape
 * naming the field, 404 for another model) and returns the canonical request, with the validated
 * request as the echo: the response object repeats it as OpenAI's does (instructions, tools, sampling).
 */
export function createResponsesDecoder(
  options: ResponsesDecodeOptions,
): (body: unknown) => DecodedRequest<ResponsesRequest> {
  const limit = options.maxOutputTokens;
  const validate = compileValidator<ResponsesRequest>(
    withMaxima(schema, { max_output_tokens: limit, max_tokens: limit }),
  );
  const checkModel = servedModelCheck(options.modelId, 'openai', options.modelAliases);
  return (body) => {
    checkModel(body);
    refuseUnsupported(body, options.functionTools);
    const request = validate(body);
    const chat = responsesToChat(request);
    if (isCompactionRequest(request)) summaryOnly(chat);
    const thinking = thinkingSwitch(request.reasoning);
    if (thinking !== undefined) (chat.gateway ??= {}).enable_thinking = thinking;
    if (typeof request.prompt_cache_key === 'string') (chat.gateway ??= {}).conversation_key = request.prompt_cache_key;
    if (typeof request.service_tier === 'string') (chat.gateway ??= {}).service_tier = request.service_tier;
    return { request: chat, echo: request };
  };
}
