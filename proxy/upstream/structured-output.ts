// Structured output at the terminal: a `response_format` that constrains the answer (`json_schema`,
// `json_object`) goes only to a server that enforces it; any other server's request is refused with a 400
// naming the client's own field (`output_config.format`, `text.format`, `response_format`), never sent to have
// the format ignored. The client's effort goes on as `reasoning_effort` where the server takes the value.
import type { ChatRequest } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { UpstreamFields } from './request-fields.js';

/** Formats that constrain the answer; `text` (or none) asks for nothing. */
const CONSTRAINING = new Set(['json_schema', 'json_object']);

/** Refuses a constraining `response_format` when the flavor's server cannot enforce it. */
export function refuseUnenforcedFormat(request: ChatRequest, fields: UpstreamFields): void {
  const flavor = fields.formatsUnenforcedBy;
  if (flavor === undefined) return;
  const format = request.response_format;
  const type = typeof format === 'object' && format !== null ? (format as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !CONSTRAINING.has(type)) return;
  const param = request.gateway?.response_format_param ?? 'response_format';
  const what = type === 'json_schema' ? 'a JSON schema' : 'JSON output';
  throw new GatewayError(
    'GW_ERR_REQUEST_INVALID',
    `${param}: the model server (${flavor}) cannot enforce ${what}; send the request without it.`,
    param,
  );
}

/** The request's `reasoning_effort` when the server takes that value; undefined: not sent. */
export function upstreamEffort(request: ChatRequest, fields: UpstreamFields): string | undefined {
  const effort = request.reasoning_effort;
  return typeof effort === 'string' && fields.reasoningEfforts?.has(effort) === true ? effort : undefined;
}
