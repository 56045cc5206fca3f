import type { ChatRequest } from '../../proxy/canonical.js';
import { GatewayError } from '../../proxy/errors.js';
import { compileValidator, withMaxima } from '../../proxy/validator.js';
import schema from '../../schemas/responses-request.json' with { type: 'json' };
import { refuseUnsupported } from './refuse.js';
import { responsesToChat } from './to-chat.js';
import type { ResponsesRequest } from './types.js';

export interface ResponsesDecodeOptions {
  modelId: string;
  /** `dialects.responses.function_tools`: function tools, function_call and function_call_output items allowed. */
  functionTools: boolean;
  /** The largest max_output_tokens / max_tokens a request may ask for: the model's context. */
  maxOutputTokens: number;
}

/**
 * Compiles the validator once; the returned decoder validates a responses body (400 in the chat shape
 * naming the field, 404 for another model) and returns the canonical request.
 */
export function createResponsesDecoder(options: ResponsesDecodeOptions): (body: unknown) => ChatRequest {
  const limit = options.maxOutputTokens;
  const validate = compileValidator<ResponsesRequest>(withMaxima(schema, { max_output_tokens: limit, max_tokens: limit }));
  return (body) => {
    refuseUnsupported(body, options.functionTools);
    const request = validate(body);
    if (request.model !== options.modelId) {
      throw new GatewayError('GW_ERR_MODEL_NOT_FOUND', `The model '${request.model}' does not exist; this gateway serves '${options.modelId}'.`, 'model');
    }
    return responsesToChat(request);
  };
}
