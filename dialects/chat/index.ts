import type { Dialect } from '../../core/dialect.js';
import { createChatDecoder, type ChatDecodeOptions, type ChatEcho } from './decode.js';
import { encodeChatBody } from './encode-body.js';
import { ChatStreamEncoder } from './encode-stream.js';
import { echoedTier } from './echoed-tier.js';
import { renderChatError } from './errors.js';

/** The chat-completions dialect (POST /v1/chat/completions). */
export function createChatDialect(options: ChatDecodeOptions): Dialect<ChatEcho> {
  const modelId = options.modelId;
  return {
    name: 'chat',
    routes: [{ method: 'POST', path: '/v1/chat/completions', kind: 'generate' }],
    family: 'openai',
    decode: createChatDecoder(options),
    wantsStream: (request) => request.stream === true,
    streamEncoder: (context, echo) => {
      const tier = echoedTier(context, echo);
      return new ChatStreamEncoder({
        id: `chatcmpl-${context.id}`,
        created: context.created,
        modelId,
        wire: context.wire,
        includeUsage: echo.includeUsage,
        continuousUsage: echo.continuousUsage,
        ...(tier === undefined ? {} : { serviceTier: tier }),
      });
    },
    encodeBody: (completion, context, echo) =>
      encodeChatBody(completion, `chatcmpl-${context.id}`, context.created, modelId, echoedTier(context, echo)),
    renderError: renderChatError,
  };
}
