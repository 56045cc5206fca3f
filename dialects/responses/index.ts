import type { Dialect, EncodeContext } from '../../core/dialect.js';
import { renderChatError } from '../chat/errors.js';
import { clientToolNames } from './client-tools.js';
import { isCompactionRequest } from './compaction.js';
import { createResponsesDecoder, type ResponsesDecodeOptions } from './decode.js';
import { encodeResponsesBody } from './encode-body.js';
import { ResponsesStreamEncoder } from './encode-stream.js';
import { servedModelCheck } from '../served-model.js';
import { responsesSocketMode } from './socket-mode.js';
import type { ResponseContext } from './response-object.js';
import type { ResponsesRequest } from './types.js';

/** The responses dialect (POST /v1/responses, and its WebSocket mode on GET /v1/responses). Its errors use the chat dialect's shape (spec section 7). */
export function createResponsesDialect(options: ResponsesDecodeOptions): Dialect<ResponsesRequest> {
  const contextOf = (context: EncodeContext, request: ResponsesRequest): ResponseContext => ({
    id: context.id,
    created: context.created,
    modelId: options.modelId,
    wire: context.wire,
    request,
    tools: clientToolNames(request.tools),
    compaction: isCompactionRequest(request),
    ...(context.serviceTier === undefined ? {} : { serviceTier: context.serviceTier.name }),
    ...(context.client === 'Codex' && context.limits !== undefined ? { codexRateLimits: context.limits } : {}),
  });
  return {
    name: 'responses',
    routes: [{ method: 'POST', path: '/v1/responses', kind: 'generate' }],
    family: 'openai',
    decode: createResponsesDecoder(options),
    wantsStream: (request) => request.stream === true,
    streamEncoder: (context, request) => new ResponsesStreamEncoder(contextOf(context, request)),
    encodeBody: (completion, context, request) => encodeResponsesBody(completion, contextOf(context, request)),
    renderError: renderChatError,
    socket: responsesSocketMode(servedModelCheck(options.modelId, 'openai', options.modelAliases)),
  };
}
