// The span of one upstream call, when the request is traced: kind CLIENT, `chat <served model>`, from the
// request sent (its `traceparent` names this span) to the end of its answer's events, with the replica
// that answered, its status and the usage it reported. A search loop calls the upstream once a round, so
// each round has its own.
import {
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import { endSpan, errorTypeOf, SpanKind, type RequestTrace, type Span } from '../../telemetry/request-trace.js';
import type { EventObserver, EventsEnd } from '../stream/observe.js';
import type { UsageWatch } from '../stream/usage-watch.js';
import type { UpstreamResponse } from './upstream-response.js';

export class CallSpan implements EventObserver {
  readonly #span: Span;

  /** Starts the span, and sets the `traceparent` (and `tracestate`) of the call's `headers` to it. */
  constructor(trace: RequestTrace, servedModel: string, headers: Record<string, string>) {
    this.#span = trace.child(`chat ${servedModel}`, SpanKind.CLIENT, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': servedModel,
    });
    trace.propagate(this.#span, headers);
  }

  /** The upstream answered: which replica, and the status (an error status ends the call here). */
  answered(response: UpstreamResponse): void {
    const span = this.#span;
    if (response.replica !== undefined) {
      span.setAttribute(ATTR_SERVER_ADDRESS, response.replica.host);
      span.setAttribute(ATTR_SERVER_PORT, response.replica.port);
    }
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
    if (response.statusCode !== 200) endSpan(span, String(response.statusCode));
  }

  /** No answer: the pool gave up (unreachable, timed out, overloaded) or the client went away first. */
  failed(error: unknown): void {
    endSpan(this.#span, errorTypeOf(error));
  }

  /** The answer's events are over: with the usage the upstream reported, failed if they broke. */
  onEnd(end: EventsEnd, watch: UsageWatch): void {
    const usage = watch.usage;
    if (usage !== undefined) {
      this.#span.setAttribute('gen_ai.usage.input_tokens', usage.prompt_tokens);
      this.#span.setAttribute('gen_ai.usage.output_tokens', usage.completion_tokens);
    }
    endSpan(this.#span, end.kind === 'failed' ? errorTypeOf(end.error) : undefined);
  }
}
