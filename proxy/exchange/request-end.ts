// The end of every request: its one log line, its metrics (a generation's GenAI metrics from what
// its answer carried, proxy/stream/answer-watch.ts) and its span (proxy/exchange/trace.ts).
import type { Logger } from 'pino';
import type { GatewayMetrics, TokenType } from '../../telemetry/metrics.js';
import type { ChatUsage } from '../../core/canonical.js';
import type { GatewayError } from '../../core/errors.js';
import type { RequestHead } from '../../core/exchange.js';
import type { LiveExchange } from './exchange.js';
import { endTrace } from './trace.js';
import type { Route } from '../routing/router.js';

/** The metrics route label of a request no route took (an unknown path or method): never its path. */
const UNMATCHED = 'unmatched';

/** An exchange is over: its line, its request count, its span, and for a decoded generation request its GenAI metrics. */
export function endExchange(
  log: Logger,
  metrics: GatewayMetrics | undefined,
  exchange: LiveExchange,
  status: number,
  aborted: boolean,
  failure: GatewayError | undefined,
): void {
  const endedAt = performance.now();
  logLine(
    log,
    exchange.id,
    exchange.req,
    exchange.route.path,
    status,
    exchange.startedAt,
    endedAt,
    aborted,
    failure,
    exchange.logFields,
  );
  if (exchange.trace !== undefined) endTrace(exchange, status, failure);
  if (metrics === undefined) return;
  const route = exchange.route;
  const dialect = route.dialect?.name ?? '';
  const org = exchange.logFields.org;
  metrics.request({
    route: route.path,
    dialect,
    wire: exchange.wire,
    stream: exchange.stream,
    status,
    org: org === undefined ? undefined : String(org),
  });
  const request = exchange.request;
  if (route.kind !== 'generate' || request === undefined) return;
  const answer = exchange.answer;
  const usage = answer?.usage;
  const firstTokenAt = exchange.stream ? answer?.firstTokenAt : undefined;
  const output = usage?.completion_tokens ?? 0;
  metrics.generation({
    dialect,
    model: request.model,
    error: failure?.code,
    durationSeconds: (endedAt - exchange.startedAt) / 1000,
    firstTokenSeconds: firstTokenAt === undefined ? undefined : (firstTokenAt - exchange.startedAt) / 1000,
    perOutputTokenSeconds:
      firstTokenAt === undefined || output < 2 ? undefined : (endedAt - firstTokenAt) / 1000 / (output - 1),
    tokens: usage === undefined ? undefined : tokensOf(usage),
  });
}

/** A request answered without an exchange: no route took it, or a WebSocket upgrade (answered or refused). */
export function endWithoutExchange(
  log: Logger,
  metrics: GatewayMetrics | undefined,
  request: { id: string; req: RequestHead; loggedPath: string; route: Route | undefined; wire: string },
  status: number,
  startedAt: number,
  failure: GatewayError | undefined,
): void {
  logLine(log, request.id, request.req, request.loggedPath, status, startedAt, performance.now(), false, failure, {});
  metrics?.request({
    route: request.route?.path ?? UNMATCHED,
    dialect: request.route?.dialect?.name ?? '',
    wire: request.wire,
    stream: false,
    status,
    org: undefined,
  });
}

function logLine(
  log: Logger,
  id: string,
  req: RequestHead,
  path: string,
  status: number,
  startedAt: number,
  endedAt: number,
  aborted: boolean,
  failure: GatewayError | undefined,
  fields: Readonly<Record<string, string | number>>,
): void {
  const ms = Math.round((endedAt - startedAt) * 100) / 100;
  log.info(
    { requestId: id, method: req.method, path, status, ms, aborted, error: failure?.code, ...fields },
    'request',
  );
}

/** The usage as the GenAI token types count it: input is every prompt token, cache reads and writes included. */
function tokensOf(usage: ChatUsage): Record<TokenType, number> {
  const details = usage.prompt_tokens_details;
  const creation = details?.cache_creation;
  return {
    input: usage.prompt_tokens,
    output: usage.completion_tokens,
    cache_read: details?.cached_tokens ?? 0,
    cache_write: (creation?.ephemeral_5m_input_tokens ?? 0) + (creation?.ephemeral_1h_input_tokens ?? 0),
  };
}
