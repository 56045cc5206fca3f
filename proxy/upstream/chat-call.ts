import { isChatRequestField, type ChatRequest, type CompletionEvent } from '../../core/canonical.js';
import type { Handler } from '../exchange/chain.js';
import { GatewayError } from '../../core/errors.js';
import { streamOf } from '../stream/event-bridges.js';
import { refuseUnhandledSearch } from '../exchange/unhandled-search.js';
import type { Exchange } from '../../core/exchange.js';
import { observe } from '../stream/observe.js';
import { CallSpan } from './call-span.js';
import type { UpstreamPool } from './pool.js';
import type { UpstreamFields } from './request-fields.js';
import type { UpstreamResponse } from './upstream-response.js';
import { upstreamStatusError } from '../../core/upstream-errors.js';
import { AnswerDecoder } from './answer-decoder.js';
import { answerPlan, type AnswerPlan } from './answer-plan.js';
import { usageFromTimings } from './llama-timings.js';
import { readMatchedStop } from './matched-stop.js';
import { streamFields } from './running-usage.js';
import { cutAtStops, StopMatcher } from './stop-matcher.js';
import { refuseUnenforcedFormat, upstreamEffort } from './structured-output.js';
import { ThinkingSeparator } from './thinking-separator.js';
import { continuedPrefill } from '../../core/prefill.js';
import { PrefillEcho, stripPrefillEcho } from './prefill-echo.js';
import {
  ReasoningTags,
  splitReasoningTags,
  tagPolicy,
  type ReasoningTagsMode,
  type TagPolicy,
} from './reasoning-tags.js';
import { countCompletionReasoning, ReasoningCount } from './reasoning-count.js';
import { upstreamCompletion } from './upstream-completion.js';
import { affinityKey } from './affinity-key.js';
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
  /** The fields that keep the caller's prompt cache apart on the upstream (`cache_salt`; cache-isolation.ts), over the client's. */
  isolationFields?: (exchange: Exchange) => Readonly<Record<string, unknown>> | undefined;
  /** Whose conversations the request's are (the caller's organization): its affinity key's scope (affinity-key.ts). */
  affinityScope?: (exchange: Exchange) => string | undefined;
  /** Whether the upstream's cached tokens are the caller's own (its cache isolated); false: they count as plain input. Default true. */
  trustCachedTokens?: boolean;
  /** Raw `<think>` tags in the content moved to the reasoning (`upstream.reasoning_tags`, reasoning-tags.ts); default auto. */
  reasoningTags?: ReasoningTagsMode;
  /**
   * vLLM's per-request `priority` for a batch line (`batch.upstream_priority`; the upstream runs
   * `--scheduling-policy priority`, where lower runs first); unset: none sent. A live request gets its service
   * tier's (`service_tiers.<tier>.upstream_priority`, exchange.serviceTier), else none (vLLM's default 0).
   */
  batchPriority?: number;
}

/** The end of the chain: sends the canonical request to the upstream and yields its answer as canonical events. */
export function createChatCall(pool: UpstreamPool, options: ChatCallOptions): Handler {
  return async (exchange: Exchange) => {
    const request = exchange.request;
    if (request === undefined) throw new GatewayError('GW_ERR_INTERNAL', 'The request was not decoded.');
    refuseUnhandledSearch(request);
    refuseUnenforcedFormat(request, options.fields);
    const headers = forwardedHeaders(exchange, options.forwardHeaders);
    const call = exchange.trace && new CallSpan(exchange.trace, options.servedModel, headers);
    const plan = answerPlan(request, options.fields);
    let response: UpstreamResponse;
    try {
      const isolation = options.isolationFields?.(exchange);
      const priority =
        exchange.batchLine !== undefined ? options.batchPriority : exchange.serviceTier?.upstreamPriority;
      response = await pool.post(
        '/chat/completions',
        upstreamBody(request, options, priority === undefined ? isolation : { ...isolation, priority }, plan),
        {
          signal: exchange.signal,
          headers,
          affinity: () => affinityKey(request, exchange.req.headers, options.affinityScope?.(exchange)),
        },
      );
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
    const usage = new UsageCheck(
      request,
      options.maxContextTokens,
      { warn: (fields, message) => exchange.log.warn(fields, message) },
      options.trustCachedTokens,
    );
    const separator = new ThinkingSeparator();
    const tagging = tagPolicy(options.reasoningTags ?? 'auto', request, options.fields.thinkingPath !== undefined);
    const tags = tagging && new ReasoningTags(tagging);
    const reasoning = new ReasoningCount();
    const echo = options.fields.prefill === 'echoed' ? continuedPrefill(request) : undefined;
    const echoed = echo === undefined ? undefined : new PrefillEcho(echo);
    const runningUsage = options.fields.runningUsage;
    const stops = plan.stops !== undefined && plan.stops.length > 0 ? plan.stops : undefined;
    const events =
      plan.upstreamStream && !(plan.whole && answeredWhole(response))
        ? response.read(
            new AnswerDecoder({
              maxEventBytes: options.maxEventBytes,
              see: (chunk) => {
                if (runningUsage === 'timings_per_token') usageFromTimings(chunk);
                readMatchedStop(chunk);
                tags?.see(chunk);
                echoed?.see(chunk);
                separator.see(chunk);
                usage.see(chunk);
                reasoning.see(chunk);
              },
              stops: stops && new StopMatcher(stops, typeof request.n === 'number' ? request.n : 1),
              whole: plan.whole
                ? { maxBytes: options.maxBodyBytes, running: (checked) => (exchange.locals.runningUsage = checked) }
                : undefined,
            }),
          )
        : streamOf(completionEvents(response, usage, options.maxBodyBytes, echo, tagging, stops));
    return call === undefined ? events : observe(events, call);
  };
}

/** vLLM's and SGLang's switch for a prefill: the last turn left open, no new generation prompt (core/prefill.ts). */
const CONTINUATION = { continue_final_message: true, add_generation_prompt: false } as const;

/**
 * The request as the upstream gets it: the allowed fields only, its own model name, the client's thinking
 * switch in the server's own field, a stream where the plan reads one (answer-plan.ts), with the usage always
 * asked for (metering needs it) and the running usage wherever the server has it (running-usage.ts).
 */
function upstreamBody(
  request: ChatRequest,
  options: ChatCallOptions,
  gatewayFields: Readonly<Record<string, unknown>> | undefined,
  plan: AnswerPlan,
): string {
  const body: Record<string, unknown> = { model: options.servedModel };
  const passed = options.fields.passed;
  for (const field of Object.keys(request))
    if (isChatRequestField(field) && passed.has(field)) body[field] = request[field];
  for (const [field, value] of Object.entries(request.extra_fields ?? {})) if (passed.has(field)) body[field] = value;
  // After the client's fields: a client cannot pick another organization's cache (or a shared one), nor
  // a batch line's priority.
  if (gatewayFields !== undefined) Object.assign(body, gatewayFields);
  const path = options.fields.thinkingPath;
  const thinking = request.gateway?.enable_thinking;
  if (thinking !== undefined && path !== undefined) setPath(body, path, thinking);
  const effort = upstreamEffort(request, options.fields);
  if (effort !== undefined) body.reasoning_effort = effort;
  if (options.fields.prefill === 'continue-flag' && continuedPrefill(request) !== undefined)
    Object.assign(body, CONTINUATION);
  // The gateway matches them itself: the server would stop at one without saying which.
  if (plan.stops !== undefined) delete body.stop;
  if (plan.upstreamStream) Object.assign(body, { stream: true }, streamFields(options.fields.runningUsage));
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

/** A server asked for a stream that answered with a body all the same: read as one. */
function answeredWhole(response: UpstreamResponse): boolean {
  const type = response.headers['content-type'];
  return typeof type === 'string' && type.toLowerCase().startsWith('application/json');
}

/** A non-streamed answer: one completion event, read when the events are. */
async function* completionEvents(
  response: UpstreamResponse,
  usage: UsageCheck,
  maxBytes: number,
  echo: string | undefined,
  tagging: TagPolicy | undefined,
  stops: readonly string[] | undefined,
): AsyncGenerator<CompletionEvent> {
  const completion = upstreamCompletion(await response.text(maxBytes));
  // In the order of a stream's: the reasoning out of the text first, so that a stop string never cuts it.
  if (tagging !== undefined) splitReasoningTags(completion, tagging);
  if (echo !== undefined) stripPrefillEcho(completion, echo);
  if (stops !== undefined) cutAtStops(completion, stops);
  usage.seeCompletion(completion);
  countCompletionReasoning(completion);
  yield { type: 'completion', completion };
}
