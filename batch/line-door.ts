// The third door of the one exchange lifecycle (proxy/exchange/run.ts): a batch line. It has no socket: its
// body is the line's, its answer is collected whole (a line never streams), and its head is made up, a POST to
// the batch's endpoint with no key, for the line runs as the key that made the batch (exchange.batchLine).
// So a line is decoded, checked, limited, billed, searched and answered exactly as a live request to that
// endpoint, and its answer (or its error, in the endpoint's dialect) is what the line's result holds.
import type { JsonObject } from '../core/canonical.js';
import type { BatchLine } from '../core/exchange.js';
import { GatewayError } from '../core/errors.js';
import type { Route } from '../core/route.js';
import { runExchange, type Door, type ExchangeRuntime } from '../proxy/exchange/run.js';
import type { WireProfile } from '../core/dialect.js';

/** What a line's request got: its status and body, as the client of the endpoint would have. */
export interface LineAnswer {
  status: number;
  body: JsonObject;
  headers: Record<string, string>;
}

export interface LineRequest {
  /** The attempt's request id (store/batch-lines.ts attemptId): its log line's, its ledger row's. */
  id: string;
  route: Route;
  body: Record<string, unknown>;
  batchLine: BatchLine;
  /** Aborted to abandon the line (the worker never does: a line runs to its end). */
  signal: AbortSignal;
  wire: WireProfile;
}

/** Runs one line through the exchange lifecycle and gives its answer. */
export async function runLine(runtime: ExchangeRuntime, line: LineRequest): Promise<LineAnswer> {
  let answer: LineAnswer | undefined;
  const reply = { headersSent: false, statusCode: 0 };
  const answered = (status: number, headers: Record<string, string>, body: JsonObject): void => {
    answer = { status, body, headers };
    reply.headersSent = true;
    reply.statusCode = status;
  };
  const door: Door = {
    reply,
    alwaysStreams: false,
    body: () => Promise.resolve({ body: line.body, generate: true }),
    bodyStream: () => {
      throw new GatewayError('GW_ERR_INTERNAL', 'A batch line has no byte stream.');
    },
    sendJson: answered,
    sendBytes: () => {
      throw new GatewayError('GW_ERR_INTERNAL', 'A batch line is answered with JSON.');
    },
    sendStream: () => {
      throw new GatewayError('GW_ERR_INTERNAL', 'A batch line is never streamed.');
    },
    sendWarmUp: () => {
      throw new GatewayError('GW_ERR_INTERNAL', 'A batch line is never a warm-up.');
    },
    sendError: (exchange, error) => {
      const rendered = exchange.route.errors.renderError(error);
      answered(rendered.status, exchange.responseHeaders, rendered.body);
    },
    endBroken: () => {},
    finalStatus: () => reply.statusCode,
    finish: () => {},
  };
  await runExchange(
    runtime,
    {
      id: line.id,
      req: { method: 'POST', url: line.route.path, headers: {} },
      batchLine: line.batchLine,
      route: line.route,
      signal: line.signal,
      wire: line.wire,
    },
    door,
  );
  // Every way through the runner answers (an error is answered too), unless the signal aborted it.
  if (answer === undefined) throw new GatewayError('GW_ERR_INTERNAL', 'The batch line was stopped before its answer.');
  return answer;
}
