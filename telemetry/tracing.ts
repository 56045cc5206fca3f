// The node's tracer, made when `tracing.otlp_url` is set: spans batched and exported over OTLP/HTTP
// (JSON), sampled by the trace id's ratio unless the client's traceparent already decided. Nothing is
// registered globally (no global provider, propagator or context manager; several gateways may run in
// one process): a request's trace carries its parent explicitly (request-trace.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, defaultTextMapGetter, type Attributes, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { RequestTrace } from './request-trace.js';

export interface TracingOptions {
  /** The collector's OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces. */
  url: string;
  serviceName: string;
  /** The gateway's version (`service.version`). */
  version: string;
  /** The share of new traces recorded, 0..1; a client's traceparent decides for its own trace. */
  sampleRatio: number;
  /** The model id every answer names (`gen_ai.response.model`). */
  modelId: string;
  /** How long finished spans wait to be exported in a batch (OTEL_BSP_SCHEDULE_DELAY; the SDK's 5 s by default). */
  exportDelayMs?: number;
}

export class GatewayTracing {
  readonly #modelId: string;
  readonly #provider: TracerProvider;
  readonly #tracer: Tracer;
  readonly #propagator = new W3CTraceContextPropagator();

  constructor(options: TracingOptions) {
    this.#modelId = options.modelId;
    const exporter = new OTLPTraceExporter({ url: options.url });
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes({
        [ATTR_SERVICE_NAME]: options.serviceName,
        [ATTR_SERVICE_VERSION]: options.version,
      }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter,
          ...(options.exportDelayMs !== undefined ? { scheduledDelayMillis: options.exportDelayMs } : {}),
        }),
      ],
    });
    this.#tracer = this.#provider.getTracer(options.serviceName, options.version);
  }

  /**
   * A request's trace: its SERVER span named `name`, the child of the client's span when the request
   * carries a valid `traceparent` (and `tracestate`), else the root of a new trace.
   */
  request(name: string, headers: IncomingHttpHeaders, attributes: Attributes): RequestTrace {
    const parent = this.#propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const span = this.#tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    return new RequestTrace(this.#tracer, this.#propagator, span, this.#modelId);
  }

  /** Exports what is left and stops: the node's last step, once its requests are settled. */
  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}
