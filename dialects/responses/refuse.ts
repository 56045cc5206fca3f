import { GatewayError } from '../../core/errors.js';
import { quoted } from '../../core/printable.js';

/** Spec rule 10: the dialect keeps no state, so nothing can refer to an earlier response. */
const STATELESS =
  "this gateway keeps no responses or conversations (the responses dialect is stateless), so the client carries the history: send the earlier turns, output items included, in 'input'.";

/** Spec rule 5. */
const NO_FUNCTION_TOOLS =
  'Function tool calling is not supported on /v1/responses; use /v1/chat/completions or /v1/messages for tools.';

export const SEARCH_TOOLS: ReadonlySet<string> = new Set([
  'web_search',
  'web_search_preview',
  'web_search_2025_08_26',
  'web_search_preview_2025_03_11',
]);

/** The tools the client runs (client-tools.ts); all behind `dialects.responses.function_tools`. */
const CLIENT_TOOLS: ReadonlySet<string> = new Set(['function', 'namespace', 'custom', 'local_shell']);

/** Input items of those tools' calls and results. */
const CLIENT_TOOL_ITEMS: ReadonlySet<string> = new Set([
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'local_shell_call_output',
]);

/**
 * What the dialect refuses, and why, checked on the raw body before the schema so the message can explain:
 * references to stored state, function tools while they are switched off, and tool types the gateway does
 * not have. Search tools pass: the search plugin runs them (and without it the upstream call refuses them).
 */
export function refuseUnsupported(body: unknown, functionTools: boolean): void {
  if (!isRecord(body)) return;
  for (const field of ['previous_response_id', 'conversation'] as const) {
    if (body[field] != null)
      throw new GatewayError('GW_ERR_REQUEST_INVALID', `'${field}' cannot be used: ${STATELESS}`, field);
  }
  if (body.background === true)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `'background' responses cannot be used: ${STATELESS}`,
      'background',
    );
  if (body.prompt != null)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Stored prompt templates ('prompt') cannot be used: ${STATELESS}`,
      'prompt',
    );
  if (Array.isArray(body.tools))
    body.tools.forEach((tool: unknown, index) => refuseTool(tool, `tools[${index}].type`, functionTools));
  if (Array.isArray(body.input))
    body.input.forEach((item: unknown, index) => refuseItem(item, `input[${index}].type`, functionTools));
  const choice = body.tool_choice;
  if (!functionTools && isRecord(choice) && choice.type === 'function')
    throw new GatewayError('GW_ERR_REQUEST_UNSUPPORTED_TOOL', NO_FUNCTION_TOOLS, 'tool_choice');
}

function refuseTool(tool: unknown, param: string, functionTools: boolean): void {
  const type = isRecord(tool) ? tool.type : undefined;
  // A tool without a type is the schema's to report.
  if (typeof type !== 'string') return;
  if (CLIENT_TOOLS.has(type)) {
    if (!functionTools) throw new GatewayError('GW_ERR_REQUEST_UNSUPPORTED_TOOL', NO_FUNCTION_TOOLS, param);
    // A namespace holds function tools only (Codex sends no other kind in one).
    if (type === 'namespace' && isRecord(tool) && Array.isArray(tool.tools))
      tool.tools.forEach((inner: unknown, index) => {
        const innerType = isRecord(inner) ? inner.type : undefined;
        if (typeof innerType === 'string' && innerType !== 'function')
          unsupported(
            innerType,
            param.replace(/\.type$/, `.tools[${index}].type`),
            "only 'function' tools can be in a namespace",
          );
      });
    return;
  }
  if (SEARCH_TOOLS.has(type)) return;
  unsupported(
    type,
    param,
    functionTools
      ? "only 'web_search', 'function', 'namespace', 'custom' and 'local_shell' tools are"
      : "only the 'web_search' tool is",
  );
}

function unsupported(type: string, param: string, allowed: string): never {
  throw new GatewayError(
    'GW_ERR_REQUEST_UNSUPPORTED_TOOL',
    `Tool type ${quoted(type)} is not supported on /v1/responses (${param}); ${allowed}.`,
    param,
  );
}

function refuseItem(item: unknown, param: string, functionTools: boolean): void {
  const type = isRecord(item) ? item.type : undefined;
  if (type === 'item_reference') {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Input items of type 'item_reference' cannot be used: ${STATELESS} (With the AI SDK, set providerOptions.openai.store to false.)`,
      param,
    );
  }
  if (!functionTools && typeof type === 'string' && CLIENT_TOOL_ITEMS.has(type)) {
    throw new GatewayError('GW_ERR_REQUEST_UNSUPPORTED_TOOL', NO_FUNCTION_TOOLS, param);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
