// How the terminal reads one request's answer, decided before the request goes up (the body depends on
// it). A streamed request is read as a stream. A non-streamed one is read as a stream too, and handed on
// whole (one completion, as before), where the flavor gives a running usage (vLLM, SGLang, llama-server:
// the server's count of what it produced is known even if the client leaves before the end) or where the
// gateway matches the stop strings itself; on the other flavors it stays a plain non-streamed call.
import type { ChatRequest } from '../../core/canonical.js';
import type { UpstreamFields } from './request-fields.js';

export interface AnswerPlan {
  /** The upstream is asked for a stream. */
  upstreamStream: boolean;
  /** A non-streamed request read as a stream: its answer goes on as one completion. */
  whole: boolean;
  /**
   * The stop strings the gateway matches itself (stop-matcher.ts), the flavor not saying which one matched;
   * `stop` is then not sent. Undefined: the server matches them (or the request has none).
   */
  stops: readonly string[] | undefined;
}

export function answerPlan(request: ChatRequest, fields: UpstreamFields): AnswerPlan {
  const stops = fields.reportsStopSequence ? undefined : stopStrings(request.stop);
  const streamed = request.stream === true;
  const whole = !streamed && (fields.runningUsage !== 'none' || (stops !== undefined && stops.length > 0));
  return { upstreamStream: streamed || whole, whole, stops };
}

/** The request's stop strings as a list; undefined when it has no `stop`. */
function stopStrings(stop: ChatRequest['stop']): readonly string[] | undefined {
  if (stop === undefined) return undefined;
  return typeof stop === 'string' ? [stop] : stop;
}
