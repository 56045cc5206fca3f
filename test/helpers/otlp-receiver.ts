// An OTLP/HTTP traces receiver on loopback, as a collector would be: it takes POST /v1/traces in the
// JSON encoding the gateway's exporter sends (gzip or not), decodes resourceSpans → scopeSpans → spans
// with their attributes, and lets a test wait for the spans it expects (no sleeps: it resolves when they
// have arrived, and fails with what did arrive after a bound).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The resource's attributes (service.name, service.version). */
  resource: Record<string, AttributeValue>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface OtlpReceiver {
  /** The traces endpoint, e.g. http://127.0.0.1:41234/v1/traces (tracing.otlp_url). */
  url: string;
  /** Export requests received so far. */
  readonly exports: number;
  spans(): ReceivedSpan[];
  /** Resolves with every span so far once `done(spans)` holds; rejects after `timeoutMs` with what arrived. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = Array<{ key: string; value: OtlpValue }> | undefined;
interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttributes };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttributes;
        status?: { code?: number };
      }>;
    }>;
  }>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  let exports = 0;
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      exports++;
      received.push(...decode(JSON.parse(body.toString('utf8')) as OtlpRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const waiter of waiters) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    get exports() {
      return exports;
    },
    spans: () => [...received],
    waitFor(done, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!done(received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve([...received]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the expected spans did not arrive; got: ${received.map((span) => span.name).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decode(request: OtlpRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? [])
      for (const span of scopeSpans.spans ?? [])
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
          resource,
        });
  }
  return spans;
}

function attributesOf(attributes: OtlpAttributes): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of attributes ?? []) out[key] = valueOf(value);
  return out;
}

function valueOf(value: OtlpValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
