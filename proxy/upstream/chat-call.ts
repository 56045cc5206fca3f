import type { ChatRequest, CompletionEvent } from '../canonical.js';
import type { Handler } from '../chain.js';
import { GatewayError } from '../errors.js';
import { streamOf } from '../event-bridges.js';
import { refuseUnhandledSearch } from '../unhandled-search.js';
import type { Exchange } from '../exchange.js';
import { observe } from '../observe.js';
import { CallSpan } from './call-span.js';
import type { UpstreamPool } from './pool.js';
import type { UpstreamFields } from './request-fields.js';
import type { UpstreamResponse } from './upstream-response.js';
import { upstreamStatusError } from './upstream-errors.js';
import { ChunkDecoder } from './chunk-decoder.js';
import { ThinkingSeparator } from './thinking-separator.js';
import { upstreamCompletion } from './upstream-completion.js';
import { UsageCheck } from './usage-check.js';

export interface ChatCallOptions {
  /** The name the upstream serves the model under; the client never sees it. */
  servedModel: string;
  /** The request fields the upstream gets (its flavor's, plus the operator's extras). */
  fields: UpstreamFields;
  /** The model's context window: the ceiling of the usage the upstream may report. */
  maxContextTokens: number;
  /** Client headers passed on to the upstream (lower case); everything else stays here. */
  forwardHeaders: string[];
  maxEventBytes: number;
  /** The largest non-streamed answer held whole (a 502 past it). */
  maxBodyBytes: number;
  /** `retry-after` of a 503 when every upstream connection stayed busy (the upstream's own, when it says). */
  retryAfterSeconds: number;
}

/** The end of the chain: sends the canonical request to the upstream and yields its answer as canonical events. */
export function createChatCall(pool: UpstreamPool, options: ChatCallOptions): Handler {
  return async (exchange: Exchange) => {
    const request = exchange.request;
    if (request === undefined) throw new GatewayError('GW_ERR_INTERNAL', 'The request was not decoded.');
    refuseUnhandledSearch(request);
    const headers = forwardedHeaders(exchange, options.forwardHeaders);
    const call = exchange.trace && new CallSpan(exchange.trace, options.servedModel, headers);
    let response: UpstreamResponse;
    try {
      response = await pool.post('/chat/completions', upstreamBody(request, options), {
        signal: exchange.signal,
        headers,
      });
    } catch (error) {
      call?.failed(error);
      if (error instanceof GatewayError && error.code === 'GW_ERR_UPSTREAM_OVERLOADED')
        writeRetryAfter(exchange, options.retryAfterSeconds);
      throw error;
    }
    call?.answered(response);
    if (response.statusCode !== 200) {
      const error = await upstreamStatusError(response, exchange.log);
      if (error.code === 'GW_ERR_UPSTREAM_OVERLOADED') writeRetryAfter(exchange, upstreamRetryAfter(response) ?? 1);
      throw error;
    }
    // The request's child logger is made on first use: only a request whose usage is out of bounds needs it.
    const usage = new UsageCheck(request, options.maxContextTokens, {
      warn: (fields, message) => exchange.log.warn(fields, message),
    });
    const separator = new ThinkingSeparator();
    const events =
      request.stream === true
        ? response.read(
            new ChunkDecoder(options.maxEventBytes, (chunk) => {
              separator.see(chunk);
              usage.see(chunk);
            }),
          )
        : streamOf(completionEvents(response, usage, options.maxBodyBytes));
    return call === undefined ? events : observe(events, call);
  };
}

const USAGE_ONLY = { include_usage: true } as const;
const RUNNING_USAGE = { include_usage: true, continuous_usage_stats: true } as const;

/**
 * The request as the upstream gets it: the allowed fields only, its own model name, the client's thinking
 * switch in the server's own field, and usage always asked for on streams (metering needs it; the running
 * usage where the dialect asked and the server has it).
 */
function upstreamBody(request: ChatRequest, options: ChatCallOptions): string {
  const body: Record<string, unknown> = { model: options.servedModel };
  const passed = options.fields.passed;
  for (const field of Object.keys(request)) if (passed.has(field)) body[field] = request[field];
  const path = options.fields.thinkingPath;
  if (request.enable_thinking !== undefined && path !== undefined) setPath(body, path, request.enable_thinking);
  if (request.stream === true) {
    body.stream_options =
      options.fields.continuousUsage && request.stream_options?.continuous_usage_stats === true
        ? RUNNING_USAGE
        : USAGE_ONLY;
  }
  return JSON.stringify(body);
}

/** Sets a nested field, copying the objects on its way (a client's own `chat_template_kwargs` keeps its other keys). */
function setPath(body: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let target = body;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      target[key] = value;
      return;
    }
    const inner = target[key];
    const copy = typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? { ...inner } : {};
    target[key] = copy;
    target = copy;
  });
}

function forwardedHeaders(exchange: Exchange, names: string[]): Record<string, string> {
  const headers: Record<string, string> = { 'x-request-id': exchange.id };
  for (const name of names) {
    const value = exchange.req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** An overloaded upstream's own `retry-after`, when it is whole seconds from 1 to 600. */
function upstreamRetryAfter(response: UpstreamResponse): number | undefined {
  const value = response.headers['retry-after'];
  if (typeof value !== 'string' || !/^\d{1,3}$/.test(value.trim())) return undefined;
  const seconds = Number(value);
  return seconds >= 1 && seconds <= 600 ? seconds : undefined;
}

/** `retry-after` in seconds, and `retry-after-ms` (what the SDKs read first), as the rate limiter writes them. */
function writeRetryAfter(exchange: Exchange, seconds: number): void {
  exchange.responseHeaders['retry-after'] = String(seconds);
  exchange.responseHeaders['retry-after-ms'] = String(seconds * 1000);
}

/** A non-streamed answer: one completion event, read when the events are. */
async function* completionEvents(
  response: UpstreamResponse,
  usage: UsageCheck,
  maxBytes: number,
): AsyncGenerator<CompletionEvent> {
  const completion = upstreamCompletion(await response.text(maxBytes));
  usage.seeCompletion(completion);
  yield { type: 'completion', completion };
}
