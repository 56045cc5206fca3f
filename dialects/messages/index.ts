import type { Dialect } from '../../proxy/dialect.js';
import type { Exchange } from '../../proxy/exchange.js';
import { createMessagesDecoders } from './decode.js';
import { encodeMessagesBody } from './encode-body.js';
import { MessagesStreamEncoder } from './encode-stream.js';
import { renderMessagesError } from './errors.js';
import type { MessagesRequest } from './types.js';

export interface MessagesDialectOptions {
  modelId: string;
  /** The largest `max_tokens` a request may ask for (the spec's 8000 by default). */
  maxTokens: number;
}

/** The message dialect (POST /v1/messages and POST /v1/messages/count_tokens). */
export function createMessagesDialect(options: MessagesDialectOptions): Dialect {
  const decoders = createMessagesDecoders(options.modelId, options.maxTokens);
  const stopSequences = (exchange: Exchange): string[] => (exchange.body as MessagesRequest).stop_sequences ?? [];
  return {
    name: 'messages',
    decode: (body) => decoders.decode(body),
    wantsStream: (request) => request.stream === true,
    streamEncoder: (exchange) => new MessagesStreamEncoder({ id: `msg_${exchange.id}`, modelId: options.modelId, stopSequences: stopSequences(exchange) }),
    encodeBody: (completion, exchange) => encodeMessagesBody(completion, `msg_${exchange.id}`, options.modelId, stopSequences(exchange)),
    renderError: renderMessagesError,
    countTokens: {
      decode: (body) => decoders.decodeCount(body),
      encode: (inputTokens) => ({ input_tokens: inputTokens }),
    },
  };
}
