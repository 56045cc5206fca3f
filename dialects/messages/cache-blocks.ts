// The prompt's blocks in Anthropic's cache order (tools, then the system blocks, then the messages'
// content blocks) for the promptcache plugin, which hashes them into prefixes and checks the marks.
// Each block can cut the request just after it: the prefix whose tokens a mark caches. Built only
// when some block carries `cache_control`; a string system prompt or message content is one text block.
import type { CacheBlock, ChatRequest, JsonObject } from '../../core/canonical.js';
import { messagesToChat } from './to-chat.js';
import type { ContentBlock, MessageParam, MessagesRequest, TextBlock, ToolParam } from './types.js';

/** The request cut just after a block, in the dialect's own form. */
type PrefixRequest = Pick<MessagesRequest, 'model' | 'messages' | 'tools' | 'system'>;

/** The blocks in cache order, or undefined when no block is marked. */
export function cacheBlocks(request: MessagesRequest): CacheBlock[] | undefined {
  if (!hasMark(request)) return undefined;
  const { model, messages } = request;
  const tools: ToolParam[] = request.tools ?? [];
  const system =
    typeof request.system === 'string' ? [{ type: 'text' as const, text: request.system }] : request.system;
  const blocks: CacheBlock[] = [];
  const add = (place: string, block: JsonObject, param: string, cut: () => PrefixRequest): void => {
    blocks.push({ place, block, mark: block.cache_control, param, prefix: (): ChatRequest => messagesToChat(cut()) });
  };
  tools.forEach((tool, i) =>
    add('t', tool as unknown as JsonObject, `tools[${i}]`, () => ({
      model,
      tools: tools.slice(0, i + 1),
      messages: [],
    })),
  );
  const withTools = tools.length > 0 ? { tools } : {};
  system?.forEach((block, i) =>
    add('s', block as unknown as JsonObject, `system[${i}]`, () => ({
      model,
      ...withTools,
      system: system.slice(0, i + 1) as TextBlock[],
      messages: [],
    })),
  );
  const withSystem = system !== undefined ? { system: request.system } : {};
  messages.forEach((message, m) => {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    content.forEach((block, b) => {
      const cut = (): PrefixRequest => ({
        model,
        ...withTools,
        ...withSystem,
        messages: [...messages.slice(0, m), { role: message.role, content: content.slice(0, b + 1) } as MessageParam],
      });
      add(`m${m}:${message.role}`, block as unknown as JsonObject, `messages[${m}].content[${b}]`, cut);
    });
  });
  return blocks;
}

/** Whether any block carries `cache_control`: a pass without allocation, for the requests (most) that mark none. */
function hasMark(request: MessagesRequest): boolean {
  const marked = (block: ToolParam | ContentBlock): boolean =>
    (block as { cache_control?: unknown }).cache_control !== undefined;
  if (request.tools?.some(marked)) return true;
  if (Array.isArray(request.system) && request.system.some(marked)) return true;
  return request.messages.some((message) => typeof message.content !== 'string' && message.content.some(marked));
}
