// The key that keeps a conversation on one replica (replica-choice.ts), so each turn finds the one before it in
// that server's prefix cache. In order: the client's own `prompt_cache_key` (chat and responses; canonical
// `conversation_key`); a session header agents send (Codex `session_id`, Claude Code `x-claude-code-session-id`,
// others `thread_id`, `session-id`); else the conversation's opening (its system prompt, its first user message
// and its tools' names), which every later turn repeats unchanged. Prefixed by the organization: two callers'
// conversations never share a key, whatever they send.
import type { IncomingHttpHeaders } from 'node:http';
import type { ChatContentPart, ChatRequest } from '../../core/canonical.js';

/** The headers that name a session, in the order they are read. */
export const SESSION_HEADERS = [
  'session_id',
  'session-id',
  'x-session-id',
  'thread_id',
  'thread-id',
  'x-claude-code-session-id',
] as const;

/** Of a key, a header and each part of the opening, this much is read: enough to tell conversations apart. */
const MAX_PART_CHARS = 4096;

export function affinityKey(
  request: ChatRequest,
  headers: IncomingHttpHeaders,
  orgId: string | undefined,
): string | undefined {
  const scope = orgId ?? '';
  const own = request.gateway?.conversation_key;
  if (own !== undefined && own !== '') return `${scope}\nkey:${own.slice(0, MAX_PART_CHARS)}`;
  for (const name of SESSION_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') return `${scope}\n${name}:${value.slice(0, MAX_PART_CHARS)}`;
  }
  const opening = openingOf(request);
  return opening === undefined ? undefined : `${scope}\nopening:${opening}`;
}

/** The leading system messages, the first user message and the tools' names; undefined without a user message. */
function openingOf(request: ChatRequest): string | undefined {
  const parts: string[] = [];
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      parts.push(contentText(message.content));
      continue;
    }
    if (message.role !== 'user') return undefined;
    parts.push(contentText(message.content));
    if (request.tools !== undefined) parts.push(request.tools.map((tool) => tool.function.name).join(','));
    return parts.join('\n');
  }
  return undefined;
}

function contentText(content: string | ChatContentPart[]): string {
  if (typeof content === 'string') return content.slice(0, MAX_PART_CHARS);
  let text = '';
  for (const part of content) {
    if (text.length >= MAX_PART_CHARS) break;
    text += `${part.text}\n`;
  }
  return text.slice(0, MAX_PART_CHARS);
}
