import type { ChatRequest } from '../../core/canonical.js';
import type { DecodedRequest } from '../../core/dialect.js';
import { GatewayError } from '../../core/errors.js';
import { markPrefill } from '../../core/prefill.js';
import { compileValidator, withMaxima } from '../../core/validator.js';
import schema from '../../schemas/messages-request.json' with { type: 'json' };
import { servedModelCheck } from '../served-model.js';
import { cacheBlocks } from './cache-blocks.js';
import { boundedMaxTokens, SPEC_MAX_TOKENS_POLICY, type MaxTokensPolicy } from './max-tokens.js';
import { messagesToChat } from './to-chat.js';
import type { MessagesRequest } from './types.js';

/** What the message encoders need of the client's request: its stop sequences (a matched one is reported by value). */
export interface MessagesEcho {
  stopSequences: readonly string[];
}

export interface MessagesDecoders {
  /** POST /v1/messages; the canonical request carries the prompt's cache blocks when the client marked some. */
  decode(body: unknown): DecodedRequest<MessagesEcho>;
  /** POST /v1/messages/count_tokens: the same request without max_tokens and stream (spec 2.8). */
  decodeCount(body: unknown): ChatRequest;
}

/**
 * Compiles the validators once. `max_tokens` is bounded by the configured limit (spec: 1..8000) after
 * the schema, so the 400 of a request over it names the setting, or the request is served at the limit
 * (`policy.overLimit: clamp`).
 */
export function createMessagesDecoders(
  modelId: string,
  maxTokensLimit: number,
  modelAliases: readonly string[] = [],
  policy: MaxTokensPolicy = SPEC_MAX_TOKENS_POLICY,
): MessagesDecoders {
  const validate = compileValidator<MessagesRequest>(withUnboundedMaxTokens());
  const maxTokens = { ...policy, limit: maxTokensLimit };
  const validateCount = compileValidator<Omit<MessagesRequest, 'max_tokens'>>({
    ...withMaxima(schema, {}),
    required: ['model', 'messages'],
  });
  const checkModel = servedModelCheck(modelId, 'anthropic', modelAliases);
  return {
    decode(body) {
      checkModel(body);
      const request = validate(body);
      const canonical = messagesToChat({ ...request, max_tokens: boundedMaxTokens(request.max_tokens, maxTokens) });
      markPrefill(canonical);
      const blocks = cacheBlocks(request);
      if (blocks !== undefined) (canonical.gateway ??= {}).cache_blocks = blocks;
      return { request: canonical, echo: { stopSequences: request.stop_sequences ?? [] } };
    },
    decodeCount(body) {
      checkModel(body);
      if (typeof body === 'object' && body !== null) {
        const record = body as Record<string, unknown>;
        if (record.max_tokens !== undefined)
          throw new GatewayError(
            'GW_ERR_REQUEST_INVALID',
            "max_tokens: Extra inputs are not permitted; count_tokens takes no 'max_tokens'.",
            'max_tokens',
          );
        if (record.stream !== undefined)
          throw new GatewayError(
            'GW_ERR_REQUEST_INVALID',
            'stream: Extra inputs are not permitted; count_tokens never streams.',
            'stream',
          );
      }
      const request = validateCount(body);
      const canonical = messagesToChat(request);
      markPrefill(canonical);
      return canonical;
    },
  };
}

/** The schema with `max_tokens` an integer from 1 up, unbounded: boundedMaxTokens applies the limit. */
function withUnboundedMaxTokens(): object {
  const copy = withMaxima(schema, {});
  const { maximum, ...maxTokens } = copy.properties.max_tokens;
  void maximum;
  return { ...copy, properties: { ...copy.properties, max_tokens: maxTokens } };
}
