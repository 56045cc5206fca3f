// One request's trace, when the node traces: its SERVER span, the child spans of what it waits on
// (upstream calls, searches, the store), and the traceparent an outgoing call carries. Parents are
// passed explicitly: a child is started in this request's context, never in an ambient one.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

export { SpanKind, type Attributes, type Span };

export class RequestTrace {
  /** The request's own span (kind SERVER). */
  readonly span: Span;
  /** Its trace id (32 hex digits) and span id (16), as the log line carries them. */
  readonly traceId: string;
  readonly spanId: string;
  /** The model id the gateway's answers name (`gen_ai.response.model`). */
  readonly modelId: string;
  readonly #tracer: Tracer;
  readonly #propagator: TextMapPropagator;
  readonly #context: Context;

  constructor(tracer: Tracer, propagator: TextMapPropagator, span: Span, modelId: string) {
    this.#tracer = tracer;
    this.modelId = modelId;
    this.#propagator = propagator;
    this.span = span;
    const context = span.spanContext();
    this.traceId = context.traceId;
    this.spanId = context.spanId;
    this.#context = trace.setSpan(ROOT_CONTEXT, span);
  }

  /** A span under the request's. */
  child(name: string, kind: SpanKind, attributes?: Attributes): Span {
    return this.#tracer.startSpan(name, { kind, ...(attributes !== undefined ? { attributes } : {}) }, this.#context);
  }

  /** Sets the W3C headers (`traceparent`, and `tracestate` if any) that make an outgoing call the child of `span`. */
  propagate(span: Span, headers: Record<string, string>): void {
    this.#propagator.inject(trace.setSpan(this.#context, span), headers, defaultTextMapSetter);
  }

  /** `work` under a child span, which ends when it settles (failed, with the error's type, when it rejects). */
  async during<T>(name: string, kind: SpanKind, attributes: Attributes, work: () => Promise<T>): Promise<T> {
    const span = this.child(name, kind, attributes);
    try {
      const result = await work();
      span.end();
      return result;
    } catch (error) {
      endSpan(span, errorTypeOf(error));
      throw error;
    }
  }
}

/** Ends a span; an `errorType` marks it failed (`error.type`, status ERROR). */
export function endSpan(span: Span, errorType?: string): void {
  if (errorType !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * What kind of error it was, never what it said (an upstream's error text stays out of traces): the
 * gateway's code (`GW_ERR_…`) or a library's (`UND_ERR_…`, `ECONNRESET`), else the error's class name.
 */
export function errorTypeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (error instanceof Error) return error.name;
  }
  return '_OTHER';
}
