import {
  SEARCH_FUNCTION_NAME,
  type ChatFunctionTool,
  type ChatMessage,
  type ChatRequest,
  type ChatToolCall,
  type ChatToolChoice,
  type ReplayedSearch,
  type ReplayedThinking,
} from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { quoted } from '../../core/printable.js';
import { TOOL_USE_PREFIX, upstreamToolCallId } from '../../core/tool-call-ids.js';
import type {
  ContentBlock,
  MessageParam,
  MessagesRequest,
  TextBlock,
  ToolChoiceParam,
  ToolParam,
  ToolResultBlock,
  ToolUseBlock,
} from './types.js';
import { applyOutputConfig } from './output-config.js';
import { referencedToolText } from './tool-reference.js';
import { replayedThinking, thinkingSwitch } from './thinking.js';
import { isSearchTool, replayedCall, replayedResult, webSearchOptions } from './web-search.js';

/** A validated message-dialect request → the canonical chat request (the model id is checked by the caller). */
export function messagesToChat(request: Omit<MessagesRequest, 'max_tokens'> & { max_tokens?: number }): ChatRequest {
  const replay: ReplayedSearch[] = [];
  const thoughts: ReplayedThinking[] = [];
  const chat: ChatRequest = { model: request.model, messages: chatMessages(request, replay, thoughts) };
  if (replay.length > 0) (chat.gateway ??= {}).web_search_replay = replay;
  if (thoughts.length > 0) (chat.gateway ??= {}).thinking_replay = thoughts;
  const thinking = thinkingSwitch(request.thinking);
  if (thinking !== undefined) (chat.gateway ??= {}).enable_thinking = thinking;
  if (request.max_tokens !== undefined) chat.max_tokens = request.max_tokens;
  if (request.stream === true) {
    chat.stream = true;
    // The first chunk then carries prompt_tokens, which message_start must report.
    chat.stream_options = { continuous_usage_stats: true };
  }
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.top_p !== undefined) chat.top_p = request.top_p;
  if (request.top_k !== undefined) chat.top_k = request.top_k;
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) chat.stop = request.stop_sequences;
  applyOutputConfig(chat, request);
  const tools: ChatFunctionTool[] = [];
  request.tools?.forEach((tool, index) => {
    if (!isSearchTool(tool)) tools.push(chatTool(tool, index));
    else if (chat.gateway?.web_search !== undefined)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Invalid value for 'tools[${index}]': only one web search tool may be given.`,
        `tools[${index}].type`,
      );
    else (chat.gateway ??= {}).web_search = webSearchOptions(tool, index);
  });
  if (chat.gateway?.web_search !== undefined) refuseNameClash(request.tools ?? []);
  if (tools.length > 0) chat.tools = tools;
  // The search plugin offers its function tool beside the client's; a choice then has a tool to choose.
  if (tools.length > 0 || chat.gateway?.web_search !== undefined)
    applyToolChoice(chat, request.tool_choice, tools, chat.gateway?.web_search !== undefined);
  return chat;
}

/** With server search on, its name belongs to it: a client tool of the same name would be ambiguous. */
function refuseNameClash(tools: ToolParam[]): void {
  const index = tools.findIndex((tool) => !isSearchTool(tool) && tool.name === SEARCH_FUNCTION_NAME);
  if (index >= 0)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for 'tools[${index}].name': '${SEARCH_FUNCTION_NAME}' is the web search tool's name; tool names must be unique.`,
      `tools[${index}].name`,
    );
}

function chatMessages(
  request: Pick<MessagesRequest, 'system' | 'messages'>,
  replay: ReplayedSearch[],
  thoughts: ReplayedThinking[],
): ChatMessage[] {
  const system: string[] = [];
  if (typeof request.system === 'string') system.push(request.system);
  else if (request.system !== undefined) system.push(joinText(request.system));
  const out: ChatMessage[] = [];
  request.messages.forEach((message, index) => {
    if (message.role === 'system')
      system.push(typeof message.content === 'string' ? message.content : joinText(textBlocks(message.content, index)));
    else if (message.role === 'user') out.push(...userMessages(message, index));
    else out.push(...assistantMessages(message, index, replay, thoughts));
  });
  const prompt = system.filter((text) => text !== '').join('\n\n');
  return prompt === '' ? out : [{ role: 'system', content: prompt }, ...out];
}

/** A user turn: its tool results first (as `tool` messages, which must follow the assistant's calls), then its text. */
function userMessages(message: MessageParam, index: number): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  const out: ChatMessage[] = [];
  const text: TextBlock[] = [];
  message.content.forEach((block, blockIndex) => {
    if (block.type === 'tool_result')
      out.push(toolMessage(block as ToolResultBlock, `messages[${index}].content[${blockIndex}]`));
    else if (block.type === 'text') text.push(block as TextBlock);
    else refuseBlock(block, `messages[${index}].content[${blockIndex}]`);
  });
  if (text.length > 0) out.push({ role: 'user', content: joinText(text) });
  return out;
}

/**
 * An assistant turn. A replayed search splits it as the model saw it: the text and the search call,
 * the search's result (a tool message, restored by the search plugin), then the rest of the turn.
 */
function assistantMessages(
  message: MessageParam,
  index: number,
  replay: ReplayedSearch[],
  thoughts: ReplayedThinking[],
): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: 'assistant', content: message.content }];
  const out: ChatMessage[] = [];
  let text: TextBlock[] = [];
  let calls: ChatToolCall[] = [];
  let reasoning = '';
  const flush = (): void => {
    const chat: Extract<ChatMessage, { role: 'assistant' }> = {
      role: 'assistant',
      content: text.length > 0 ? joinAnswerText(text) : null,
    };
    if (calls.length > 0) chat.tool_calls = calls;
    if (reasoning !== '') chat.reasoning_content = reasoning;
    out.push(chat);
    text = [];
    calls = [];
    reasoning = '';
  };
  message.content.forEach((block, blockIndex) => {
    const param = `messages[${index}].content[${blockIndex}]`;
    if (block.type === 'text') text.push(block as TextBlock);
    else if (block.type === 'tool_use') {
      const use = block as ToolUseBlock;
      calls.push({
        id: upstreamToolCallId(TOOL_USE_PREFIX, use.id),
        type: 'function',
        function: { name: use.name, arguments: JSON.stringify(use.input) },
      });
    } else if (block.type === 'server_tool_use')
      calls.push(replayedCall(block as ContentBlock & Record<string, unknown>, param));
    else if (block.type === 'web_search_tool_result') {
      const restored = replayedResult(block as ContentBlock & Record<string, unknown>, param, calls);
      flush();
      out.push(restored.message);
      replay.push(restored.replay);
    } else if (block.type === 'thinking') reasoning += replayedThinking(block, param, thoughts);
    else if (block.type !== 'redacted_thinking') refuseBlock(block, param);
  });
  if (out.length === 0 || text.length > 0 || calls.length > 0 || reasoning !== '') flush();
  return out;
}

/** A tool result: its text, and a line per tool that Claude Code's ToolSearch loaded (`tool_reference`). */
function toolMessage(block: ToolResultBlock, param: string): ChatMessage {
  const content =
    block.content === undefined
      ? ''
      : typeof block.content === 'string'
        ? block.content
        : joinText(
            (block.content as ContentBlock[]).map((part, i) =>
              part.type === 'tool_reference'
                ? referencedToolText(part, `${param}.content[${i}]`)
                : textBlock(part, `${param}.content[${i}]`),
            ),
          );
  return {
    role: 'tool',
    tool_call_id: upstreamToolCallId(TOOL_USE_PREFIX, block.tool_use_id),
    content: block.is_error === true ? `Error: ${content}` : content,
  };
}

function textBlocks(blocks: ContentBlock[], param: string | number): TextBlock[] {
  const where = typeof param === 'number' ? `messages[${param}].content` : `${param}.content`;
  return blocks.map((block, i) => textBlock(block, `${where}[${i}]`));
}

function textBlock(block: ContentBlock, param: string): TextBlock {
  if (block.type !== 'text' || typeof (block as TextBlock).text !== 'string') refuseBlock(block, param);
  return block as TextBlock;
}

/** An answer's text blocks; those split at citations (they carry `citations`) join back without a separator, as the model wrote them. */
function joinAnswerText(blocks: TextBlock[]): string {
  let text = '';
  let glued = false;
  blocks.forEach((block, index) => {
    const cited = Array.isArray((block as TextBlock & { citations?: unknown }).citations);
    text += index === 0 || glued || cited ? block.text : `\n${block.text}`;
    glued = cited;
  });
  return text;
}

function joinText(blocks: TextBlock[]): string {
  return blocks.map((block) => block.text).join('\n');
}

/** Blocks a text-only model cannot take are refused, never silently dropped. */
function refuseBlock(block: ContentBlock, param: string): never {
  const why =
    block.type === 'image' || block.type === 'document'
      ? `this model reads text only; ${quoted(block.type)} blocks are not supported`
      : block.type === 'server_tool_use' || block.type === 'web_search_tool_result'
        ? 'server tool blocks belong in assistant turns'
        : `${quoted(block.type)} blocks are not supported here`;
  throw new GatewayError('GW_ERR_REQUEST_INVALID', `Invalid block at '${param}': ${why}.`, `${param}.type`);
}

function chatTool(tool: ToolParam, index: number): ChatFunctionTool {
  if (tool.type !== undefined && tool.type !== 'custom') {
    const param = `tools[${index}].type`;
    if (tool.type.startsWith('web_search_'))
      throw new GatewayError(
        'GW_ERR_REQUEST_UNSUPPORTED_TOOL',
        `The server tool ${quoted(tool.type)} needs web search, which is not enabled on this gateway.`,
        param,
      );
    throw new GatewayError(
      'GW_ERR_REQUEST_UNSUPPORTED_TOOL',
      `The server tool ${quoted(tool.type)} is not supported; only client tools (name, description, input_schema) are.`,
      param,
    );
  }
  if (tool.input_schema === undefined)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Missing required field 'tools[${index}].input_schema'.`,
      `tools[${index}].input_schema`,
    );
  const fn: ChatFunctionTool['function'] = { name: tool.name, parameters: tool.input_schema };
  if (tool.description !== undefined) fn.description = tool.description;
  if (tool.strict !== undefined) fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

/** The spec's strings (`auto`, `required`, a tool name) and Anthropic's objects (`{type: auto|any|tool|none}`). */
function applyToolChoice(
  chat: ChatRequest,
  choice: ToolChoiceParam | undefined,
  tools: ChatFunctionTool[],
  search: boolean,
): void {
  if (choice === undefined) return;
  const named = (name: string): ChatToolChoice => {
    if (!tools.some((tool) => tool.function.name === name) && !(search && name === SEARCH_FUNCTION_NAME)) {
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Invalid value for 'tool_choice': no tool named ${quoted(name)} is in 'tools'.`,
        'tool_choice',
      );
    }
    return { type: 'function', function: { name } };
  };
  if (typeof choice === 'string') {
    chat.tool_choice =
      choice === 'auto' || choice === 'none'
        ? choice
        : choice === 'required' || choice === 'any'
          ? 'required'
          : named(choice);
    return;
  }
  chat.tool_choice =
    choice.type === 'auto' || choice.type === 'none'
      ? choice.type
      : choice.type === 'any'
        ? 'required'
        : named(choice.name ?? '');
  if (choice.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
}
