import type { CanonicalEvent, ChatCompletion, ChatRequest } from '../canonical.js';
import type { Handler } from '../chain.js';
import { GatewayError } from '../errors.js';
import { refuseUnhandledSearch } from '../unhandled-search.js';
import type { Exchange } from '../exchange.js';
import type { UpstreamPool } from './pool.js';
import type { UpstreamResponse } from './upstream-response.js';
import { upstreamStatusError } from './upstream-errors.js';
import { ChunkDecoder } from './chunk-decoder.js';
import { completionAsChunk } from './completion-chunk.js';

export interface ChatCallOptions {
  /** The public model id clients use. */
  modelId: string;
  /** The name the upstream serves the model under; the client never sees it. */
  servedModel: string;
  /** Client headers passed on to the upstream (lower case); everything else stays here. */
  forwardHeaders: string[];
  maxEventBytes: number;
}

/** The end of the chain: sends the canonical request to the upstream and yields its answer as canonical events. */
export function createChatCall(pool: UpstreamPool, options: ChatCallOptions): Handler {
  const hideName = (text: string): string => text.split(options.servedModel).join(options.modelId);
  return async (exchange: Exchange) => {
    const request = exchange.request;
    if (request === undefined) throw new GatewayError('GW_ERR_INTERNAL', 'The request was not decoded.');
    refuseUnhandledSearch(request);
    const response = await pool.post('/chat/completions', upstreamBody(request, options.servedModel), {
      signal: exchange.signal,
      headers: forwardedHeaders(exchange, options.forwardHeaders),
    });
    if (response.statusCode !== 200) throw await upstreamStatusError(response, hideName);
    return request.stream === true ? response.read(new ChunkDecoder(options.maxEventBytes)) : completionEvents(response);
  };
}

/** The request as the upstream gets it: its own model name, and usage always asked for on streams (metering needs it). */
function upstreamBody(request: ChatRequest, servedModel: string): string {
  if (request.stream !== true) return JSON.stringify({ ...request, model: servedModel, stream_options: undefined });
  return JSON.stringify({ ...request, model: servedModel, stream_options: { ...request.stream_options, include_usage: true } });
}

function forwardedHeaders(exchange: Exchange, names: string[]): Record<string, string> {
  const headers: Record<string, string> = { 'x-request-id': exchange.id };
  for (const name of names) {
    const value = exchange.req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

async function* completionEvents(response: UpstreamResponse): AsyncGenerator<CanonicalEvent> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent a body that is not JSON.');
  }
  const completion = parsed as ChatCompletion;
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray(completion.choices)) {
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent a completion without choices.');
  }
  yield { type: 'chunk', chunk: completionAsChunk(completion) };
}
