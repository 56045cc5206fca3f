// A chat body as llama-server reads it (tools/server/server-common.cpp, oaicompat_chat_params_parse,
// and server-schema.cpp), where it differs from vLLM's reading (chat-request.ts, whose type checks
// still apply, answered in llama-server's error shape):
// - a trailing assistant message is a prefill to continue (its `--prefill-assistant` default): the
//   prompt leaves it open, without a generation prompt, and the answer echoes it (chatPrompt); two
//   assistant messages at the end, or one with tool calls, are a 400. An explicit
//   `continue_final_message` continues without the echo;
// - `reasoning_effort: "none"` switches the thinking off, as `enable_thinking: false` does;
// - `timings_per_token` is read; `cache_prompt: false` reuses nothing of the slot; `max_tokens: -1`
//   means no limit;
// - what llama-server does not know is ignored: `stream_options` without `stream`, its
//   `continuous_usage_stats`, `include_stop_str_in_output` (stop strings never reach the text),
//   `cache_salt`, and any other unknown field.
import { messageText } from '../prompt/template-input.js';
import { isRecord, parseChatRequest } from './chat-request.js';
import { badRequest } from './errors.js';
import type { ChatReading } from './flavor.js';

export function parseLlamaChatRequest(body: unknown): ChatReading {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.');
  const read: Record<string, unknown> = { ...body };
  if (read.stream !== true) delete read.stream_options;
  if (read.max_tokens === -1) delete read.max_tokens;
  if (read.max_completion_tokens === -1) delete read.max_completion_tokens;
  const prefill = continuesPrefill(read);
  if (prefill) {
    read.add_generation_prompt = false;
    read.continue_final_message = true;
  }
  if (read.reasoning_effort === 'none') {
    read.chat_template_kwargs = {
      ...(isRecord(read.chat_template_kwargs) ? read.chat_template_kwargs : {}),
      enable_thinking: false,
    };
  }
  const request = parseChatRequest(read);
  const last = request.messages.at(-1);
  return {
    request: {
      ...request,
      continuousUsage: false,
      includeStopStrInOutput: false,
      timingsPerToken: read.timings_per_token === true,
    },
    prefill: prefill && last ? messageText(last.content) : null,
    reusesCache: read.cache_prompt !== false,
    cacheSalt: null,
  };
}

/** Whether the body ends with an assistant message that llama-server continues on its own (no continue_final_message). */
function continuesPrefill(body: Record<string, unknown>): boolean {
  if (body.continue_final_message !== undefined || !Array.isArray(body.messages)) return false;
  const messages: unknown[] = body.messages;
  const role = (m: unknown): unknown => (isRecord(m) ? m.role : undefined);
  const last = messages.at(-1);
  if (role(last) !== 'assistant') return false;
  if (role(messages.at(-2)) === 'assistant') {
    throw badRequest('Cannot have 2 or more assistant messages at the end of the list.');
  }
  if (isRecord(last) && Array.isArray(last.tool_calls) && last.tool_calls.length > 0) {
    throw badRequest('Cannot continue an assistant message that contains tool calls.');
  }
  return true;
}
