import type { ChatRequest } from '../../proxy/canonical.js';
import type { Dialect } from '../../proxy/dialect.js';
import type { Exchange } from '../../proxy/exchange.js';
import { createChatDecoder, type ChatDecodeOptions } from './decode.js';
import { encodeChatBody } from './encode-body.js';
import { ChatStreamEncoder } from './encode-stream.js';
import { renderChatError } from './errors.js';

/** The chat-completions dialect (POST /v1/chat/completions). */
export function createChatDialect(options: ChatDecodeOptions): Dialect {
  const modelId = options.modelId;
  const decode = createChatDecoder(options);
  return {
    name: 'chat',
    decode,
    wantsStream: (request: ChatRequest) => request.stream === true,
    streamEncoder(exchange: Exchange) {
      const options = (exchange.body as ChatRequest).stream_options;
      return new ChatStreamEncoder({
        id: `chatcmpl-${exchange.id}`,
        created: exchange.created,
        modelId,
        wire: exchange.wire,
        includeUsage: options?.include_usage === true,
        continuousUsage: options?.continuous_usage_stats === true,
      });
    },
    encodeBody: (completion, exchange) => encodeChatBody(completion, `chatcmpl-${exchange.id}`, exchange.created, modelId),
    renderError: renderChatError,
  };
}
