// What the response object repeats of the request, in the types of OpenAI's Response (and of the Open Responses
// `ResponseResource`): every field present, the effective value where the client sent none.
import type { JsonObject } from '../../core/canonical.js';
import type { ResponsesRequest } from './types.js';

/**
 * What the response reports for sampling the client left unset: OpenAI's defaults (temperature and top_p 1,
 * no penalties). The upstream then samples with its own defaults, which the gateway does not know (vLLM takes a
 * model's generation_config), so these are nominal; a value the client sent is echoed as sent, and passed on.
 */
const SAMPLING_DEFAULTS = { temperature: 1, top_p: 1, presence_penalty: 0, frequency_penalty: 0 } as const;

export function echoedSampling(request: ResponsesRequest): JsonObject {
  return {
    temperature: request.temperature ?? SAMPLING_DEFAULTS.temperature,
    top_p: request.top_p ?? SAMPLING_DEFAULTS.top_p,
    presence_penalty: request.presence_penalty ?? SAMPLING_DEFAULTS.presence_penalty,
    frequency_penalty: request.frequency_penalty ?? SAMPLING_DEFAULTS.frequency_penalty,
  };
}

/**
 * The tools as OpenAI echoes them: a function tool with all its fields (`description`, `parameters` and `strict`
 * null when not given: the gateway sends `strict` upstream only when the client set it, and enforces none itself);
 * a search tool as the client sent it.
 */
export function echoedTools(request: ResponsesRequest): JsonObject[] {
  return (request.tools ?? []).map((tool) =>
    tool.type === 'function'
      ? {
          type: 'function',
          name: tool.name,
          description: tool.description ?? null,
          parameters: tool.parameters ?? null,
          strict: tool.strict ?? null,
        }
      : { ...tool },
  );
}

/** `text`: the format used (plain text unless asked), a JSON schema format with its optional fields filled in. */
export function echoedText(request: ResponsesRequest): JsonObject {
  const text: JsonObject = { ...request.text, format: { type: 'text' } };
  const format = request.text?.format;
  if (format?.type === 'json_schema')
    text.format = { ...format, description: format.description ?? null, strict: format.strict ?? false };
  else if (format !== undefined) text.format = { ...format };
  return text;
}

/** `reasoning`: its `effort` and `summary`, null when not asked. */
export function echoedReasoning(request: ResponsesRequest): JsonObject {
  const reasoning = request.reasoning ?? {};
  return { ...reasoning, effort: reasoning.effort ?? null, summary: reasoning.summary ?? null };
}
