// The message dialect's structured output and effort: `output_config.format` (and the older top-level
// `output_format`, which the SDKs' beta helpers still send) as the canonical `response_format`, which the
// terminal sends as the server enforces it or refuses (proxy/upstream/structured-output.ts); and
// `output_config.effort` as the canonical `reasoning_effort`.
import type { ChatRequest } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { MessagesRequest } from './types.js';

/** The schema's name upstream: Anthropic's format has none, OpenAI's `json_schema` needs one. */
const FORMAT_NAME = 'output';

/**
 * Anthropic's effort as OpenAI's `reasoning_effort` (which has no `max`: its highest is `xhigh`). Another value
 * (a level added later) is left out, as an unknown field is: a client's every request must not fail on it.
 */
const REASONING_EFFORT: Readonly<Record<string, string>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'xhigh',
};

/** Sets the canonical `response_format` (always strict: Anthropic's JSON outputs always follow the schema) and `reasoning_effort`. */
export function applyOutputConfig(
  chat: ChatRequest,
  request: Pick<MessagesRequest, 'output_config' | 'output_format'>,
): void {
  const current = request.output_config?.format ?? undefined;
  const legacy = request.output_format ?? undefined;
  if (current !== undefined && legacy !== undefined)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      "Invalid request: give 'output_config.format' or the older 'output_format', not both.",
      'output_format',
    );
  const format = current ?? legacy;
  if (format !== undefined) {
    chat.response_format = {
      type: 'json_schema',
      json_schema: { name: FORMAT_NAME, schema: format.schema, strict: true },
    };
    (chat.gateway ??= {}).response_format_param = current !== undefined ? 'output_config.format' : 'output_format';
  }
  const effort = request.output_config?.effort;
  const reasoningEffort =
    typeof effort === 'string' && Object.hasOwn(REASONING_EFFORT, effort) ? REASONING_EFFORT[effort] : undefined;
  if (reasoningEffort !== undefined) chat.reasoning_effort = reasoningEffort;
}
