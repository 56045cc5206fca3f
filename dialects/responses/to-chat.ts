import {
  SEARCH_FUNCTION_NAME,
  type ChatContentPart,
  type ChatFunctionTool,
  type ChatMessage,
  type ChatRequest,
  type ChatToolChoice,
  type JsonObject,
} from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { quoted } from '../../core/printable.js';
import { CALL_PREFIX, upstreamToolCallId } from '../../core/tool-call-ids.js';
import { customArguments, chatToolsOf } from './client-tools.js';
import { checkTriggerPlace, decodeSummary, SUMMARY_PREFIX, SUMMARY_REQUEST } from './compaction.js';
import { shellArguments } from './call-items.js';
import { SEARCH_TOOLS } from './refuse.js';
import { flatName, LOCAL_SHELL_FUNCTION } from './tool-names.js';
import type {
  InputItem,
  InputTextPart,
  ResponsesRequest,
  TextFormat,
  ResponsesToolChoice,
  WebSearchToolParam,
} from './types.js';
import { webSearchOptions } from './web-search.js';

const NO_NAMES: ReadonlySet<string> = new Set();
const SEARCH_NAMES: ReadonlySet<string> = new Set([SEARCH_FUNCTION_NAME]);

/**
 * A validated responses request → the canonical chat request (the model id is checked by the caller).
 * Only the client's tools (client-tools.ts) and search tools reach this point: other tools were refused before
 * (refuse.ts). The search tool becomes the gateway-side `web_search` (the search plugin runs it).
 */
export function responsesToChat(request: ResponsesRequest): ChatRequest {
  const chat: ChatRequest = { model: request.model, messages: chatMessages(request) };
  const maxTokens = request.max_tokens ?? request.max_output_tokens;
  if (maxTokens != null) chat.max_tokens = maxTokens;
  if (request.temperature != null) chat.temperature = request.temperature;
  if (request.top_p != null) chat.top_p = request.top_p;
  if (request.presence_penalty != null) chat.presence_penalty = request.presence_penalty;
  if (request.frequency_penalty != null) chat.frequency_penalty = request.frequency_penalty;
  if (request.stream === true) chat.stream = true;
  const format = responseFormat(request.text?.format);
  if (format !== undefined) {
    chat.response_format = format;
    (chat.gateway ??= {}).response_format_param = 'text.format';
  }
  (request.tools ?? []).forEach((tool, index) => {
    if (!isSearchTool(tool)) return;
    if (chat.gateway?.web_search !== undefined)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Invalid value for 'tools[${index}]': only one web search tool may be given.`,
        `tools[${index}].type`,
      );
    else (chat.gateway ??= {}).web_search = webSearchOptions(tool, index);
  });
  if (chat.gateway?.web_search !== undefined) {
    const clash = (request.tools ?? []).findIndex(
      (tool) => tool.type === 'function' && tool.name === SEARCH_FUNCTION_NAME,
    );
    if (clash >= 0)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Invalid value for 'tools[${clash}].name': '${SEARCH_FUNCTION_NAME}' is the web search tool's name; tool names must be unique.`,
        `tools[${clash}].name`,
      );
  }
  const tools = chatToolsOf(request.tools, chat.gateway?.web_search === undefined ? NO_NAMES : SEARCH_NAMES);
  if (tools.length > 0 || chat.gateway?.web_search !== undefined) {
    if (tools.length > 0) chat.tools = tools;
    const choice = toolChoice(request.tool_choice, tools);
    if (choice !== undefined) chat.tool_choice = choice;
    if (request.parallel_tool_calls != null) chat.parallel_tool_calls = request.parallel_tool_calls;
  }
  return chat;
}

/**
 * `instructions` and every system or developer message fold into one leading system prompt (open models'
 * templates know `system`, and many refuse it anywhere but first); messages, function calls and their outputs
 * become chat messages in order; earlier search rounds and reasoning items are skipped (spec 2.7). A compaction
 * trigger becomes the request for a summary, a compaction item its summary (compaction.ts).
 */
function chatMessages(request: ResponsesRequest): ChatMessage[] {
  const system: string[] = request.instructions ? [request.instructions] : [];
  const out: ChatMessage[] = [];
  const items: InputItem[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  checkTriggerPlace(items);
  for (const [index, item] of items.entries()) {
    switch (item.type) {
      case undefined:
      case 'message':
        if (item.role === 'system' || item.role === 'developer') system.push(joinText(item.content));
        else if (item.role === 'user') out.push({ role: 'user', content: textContent(item.content) });
        else out.push({ role: 'assistant', content: textContent(item.content) });
        break;
      case 'function_call':
        pushCall(out, item.call_id, item.namespace ? flatName(item.namespace, item.name) : item.name, item.arguments);
        break;
      case 'custom_tool_call':
        pushCall(out, item.call_id, item.name, customArguments(item.input));
        break;
      case 'local_shell_call':
        pushCall(out, item.call_id ?? item.id ?? '', LOCAL_SHELL_FUNCTION, shellArguments(item.action));
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        out.push({ role: 'tool', tool_call_id: upstreamCallId(item.call_id), content: textContent(item.output) });
        break;
      case 'local_shell_call_output':
        out.push({ role: 'tool', tool_call_id: upstreamCallId(item.call_id ?? item.id ?? ''), content: item.output });
        break;
      case 'compaction_trigger':
        out.push({ role: 'user', content: SUMMARY_REQUEST });
        break;
      case 'compaction':
        out.push({
          role: 'user',
          content: SUMMARY_PREFIX + decodeSummary(item.encrypted_content, `input[${index}].encrypted_content`),
        });
        break;
      case 'web_search_call':
      case 'reasoning':
        break;
      default:
        return unreachable(item);
    }
  }
  const prompt = system.filter((text) => text !== '').join('\n\n');
  return prompt === '' ? out : [{ role: 'system', content: prompt }, ...out];
}

/** A call id the client got (`call_…`) as the server's own (core/tool-call-ids.ts). */
function upstreamCallId(id: string): string {
  return upstreamToolCallId(CALL_PREFIX, id);
}

function textContent(content: string | InputTextPart[]): string | ChatContentPart[] {
  return typeof content === 'string' ? content : content.map((part) => ({ type: 'text', text: part.text }));
}

function joinText(content: string | InputTextPart[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('\n');
}

/** A call of an earlier turn: calls of one turn follow its text (or each other), in the same assistant message. */
function pushCall(out: ChatMessage[], id: string, name: string, args: string): void {
  const call = { id: upstreamCallId(id), type: 'function' as const, function: { name, arguments: args } };
  const last = out.at(-1);
  if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
  else out.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function isSearchTool(tool: NonNullable<ResponsesRequest['tools']>[number]): tool is WebSearchToolParam {
  return SEARCH_TOOLS.has(tool.type);
}

function toolChoice(
  choice: ResponsesToolChoice | null | undefined,
  tools: ChatFunctionTool[],
): ChatToolChoice | undefined {
  if (choice == null || typeof choice === 'string') return choice ?? undefined;
  if (!tools.some((tool) => tool.function.name === choice.name)) {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for 'tool_choice': no tool named ${quoted(choice.name)} is in 'tools'.`,
      'tool_choice.name',
    );
  }
  return { type: 'function', function: { name: choice.name } };
}

/** `text.format` → the upstream's `response_format` (vLLM and llama-server honour both forms). */
function responseFormat(format: TextFormat | undefined): JsonObject | undefined {
  if (format === undefined) return undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const schema: JsonObject = { name: format.name, schema: format.schema };
      if (format.description !== undefined) schema.description = format.description;
      if (format.strict != null) schema.strict = format.strict;
      return { type: 'json_schema', json_schema: schema };
    }
    default:
      return unreachable(format);
  }
}

function unreachable(value: never): never {
  throw new GatewayError('GW_ERR_INTERNAL', `Unexpected value ${JSON.stringify(value)}.`);
}
