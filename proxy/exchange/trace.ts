// An exchange's trace, when the node traces (telemetry/tracing.ts): its span starts with the exchange,
// continuing the client's traceparent, its ids go on the request's log line, and it ends with the
// exchange, carrying the HTTP outcome and the OpenTelemetry GenAI attributes of what the client got.
import { SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import type { Attributes } from '../../telemetry/request-trace.js';
import type { GatewayTracing } from '../../telemetry/tracing.js';
import type { GatewayError } from '../../core/errors.js';
import type { LiveExchange } from './exchange.js';

/** The GenAI semantic conventions' attributes (still incubating upstream, so named here, not imported). */
const GEN_AI = {
  operation: 'gen_ai.operation.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  maxTokens: 'gen_ai.request.max_tokens',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
} as const;

/** Starts the exchange's span (`<METHOD> <route path>`) and puts its ids on the log line. */
export function traceExchange(exchange: LiveExchange, tracing: GatewayTracing): void {
  const method = exchange.req.method ?? 'GET';
  const route = exchange.route.path;
  const trace = tracing.request(`${method} ${route}`, exchange.req.headers, {
    [ATTR_HTTP_REQUEST_METHOD]: method,
    [ATTR_HTTP_ROUTE]: route,
    'gateway.request.id': exchange.id,
  });
  exchange.trace = trace;
  exchange.logFields.trace_id = trace.traceId;
  exchange.logFields.span_id = trace.spanId;
}

/**
 * Ends the exchange's span with its status and, for a decoded generation, what the client was told
 * (model, usage, finish reasons). `error.type` is the failure's code; the span's status is an error on
 * a 5xx, or on a failure after a successful head (a stream that broke): a 4xx is the client's, as the
 * HTTP conventions have it.
 */
export function endTrace(exchange: LiveExchange, status: number, failure: GatewayError | undefined): void {
  const trace = exchange.trace;
  if (trace === undefined) return;
  const attributes: Attributes = { [ATTR_HTTP_RESPONSE_STATUS_CODE]: status };
  if (failure !== undefined) attributes[ATTR_ERROR_TYPE] = failure.code;
  else if (status >= 500) attributes[ATTR_ERROR_TYPE] = String(status);
  const request = exchange.request;
  if (exchange.route.kind === 'generate' && request !== undefined) {
    attributes[GEN_AI.operation] = 'chat';
    attributes[GEN_AI.requestModel] = request.model;
    attributes['gateway.stream'] = exchange.stream;
    attributes['gateway.dialect'] = exchange.route.dialect?.name ?? '';
    if (typeof request.max_tokens === 'number') attributes[GEN_AI.maxTokens] = request.max_tokens;
    const answer = exchange.answer;
    if (answer?.usage !== undefined) {
      attributes[GEN_AI.responseModel] = trace.modelId;
      attributes[GEN_AI.inputTokens] = answer.usage.prompt_tokens;
      attributes[GEN_AI.outputTokens] = answer.usage.completion_tokens;
    }
    if (answer !== undefined && answer.finishReasons.size > 0)
      attributes[GEN_AI.finishReasons] = [...answer.finishReasons];
  }
  const span = trace.span;
  span.setAttributes(attributes);
  if (status >= 500 || (failure !== undefined && status < 400)) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
