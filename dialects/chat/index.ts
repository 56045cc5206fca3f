import type { Dialect } from '../../core/dialect.js';
import { createChatDecoder, type ChatDecodeOptions, type ChatEcho } from './decode.js';
import { encodeChatBody } from './encode-body.js';
import { ChatStreamEncoder } from './encode-stream.js';
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
    streamEncoder: (context, echo) =>
      new ChatStreamEncoder({
        id: `chatcmpl-${context.id}`,
        created: context.created,
        modelId,
        wire: context.wire,
        ...echo,
      }),
    encodeBody: (completion, context) => encodeChatBody(completion, `chatcmpl-${context.id}`, context.created, modelId),
    renderError: renderChatError,
  };
}
