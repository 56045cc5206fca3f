import type { ChatRequest } from '../../proxy/canonical.js';
import type { Dialect } from '../../proxy/dialect.js';
import type { Exchange } from '../../proxy/exchange.js';
import { renderChatError } from '../chat/errors.js';
import { createResponsesDecoder, type ResponsesDecodeOptions } from './decode.js';
import { encodeResponsesBody } from './encode-body.js';
import { ResponsesStreamEncoder } from './encode-stream.js';
import type { ResponseContext } from './response-object.js';
import type { ResponsesRequest } from './types.js';

/** The responses dialect (POST /v1/responses). Its errors use the chat dialect's shape (spec section 7). */
export function createResponsesDialect(options: ResponsesDecodeOptions): Dialect {
  const contextOf = (exchange: Exchange): ResponseContext => ({
    id: exchange.id,
    created: exchange.created,
    modelId: options.modelId,
    wire: exchange.wire,
    request: exchange.body as ResponsesRequest,
  });
  return {
    name: 'responses',
    decode: createResponsesDecoder(options),
    wantsStream: (request: ChatRequest) => request.stream === true,
    streamEncoder: (exchange) => new ResponsesStreamEncoder(contextOf(exchange)),
    encodeBody: (completion, exchange) => encodeResponsesBody(completion, contextOf(exchange)),
    renderError: renderChatError,
  };
}
