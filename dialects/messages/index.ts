import type { Dialect } from '../../core/dialect.js';
import { createMessagesDecoders, type MessagesEcho } from './decode.js';
import { encodeMessagesBody } from './encode-body.js';
import { MessagesStreamEncoder } from './encode-stream.js';
import { renderMessagesError } from './errors.js';
import type { MaxTokensPolicy } from './max-tokens.js';

export interface MessagesDialectOptions {
  modelId: string;
  /** More ids a request may name for the model (`model.aliases`). */
  modelAliases?: readonly string[];
  /** The largest `max_tokens` a request may ask for (the spec's 8000 by default). */
  maxTokens: number;
  /** What sets that limit and what a request over it gets (default: the setting's, refused). */
  maxTokensPolicy?: MaxTokensPolicy;
}

/** The message dialect (POST /v1/messages and POST /v1/messages/count_tokens). */
export function createMessagesDialect(options: MessagesDialectOptions): Dialect<MessagesEcho> {
  const decoders = createMessagesDecoders(
    options.modelId,
    options.maxTokens,
    options.modelAliases,
    options.maxTokensPolicy,
  );
  return {
    name: 'messages',
    routes: [
      { method: 'POST', path: '/v1/messages', kind: 'generate' },
      { method: 'POST', path: '/v1/messages/count_tokens', kind: 'count_tokens' },
    ],
    family: 'anthropic',
    decode: (body) => decoders.decode(body),
    wantsStream: (request) => request.stream === true,
    streamEncoder: (context, echo) =>
      new MessagesStreamEncoder({
        id: `msg_${context.id}`,
        modelId: options.modelId,
        stopSequences: echo.stopSequences,
        sign: (thinking) => context.thinkingSigner.sign(thinking),
      }),
    encodeBody: (completion, context, echo) =>
      encodeMessagesBody(completion, `msg_${context.id}`, options.modelId, echo.stopSequences, (thinking) =>
        context.thinkingSigner.sign(thinking),
      ),
    renderError: renderMessagesError,
    countTokens: {
      decode: (body) => decoders.decodeCount(body),
      encode: (inputTokens) => ({ input_tokens: inputTokens }),
    },
  };
}
