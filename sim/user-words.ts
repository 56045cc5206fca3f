// The user's own words in a user message: its text (parts joined with `\n`) without the
// `<system-reminder>` blocks that Claude Code adds to user turns, which are the harness's notes, not
// what the user asked. The echo, tool and search rules read these words.
import type { SimChatMessage } from './chat-types.js';
import { messageText } from '../prompt/template-input.js';

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

export function userWords(content: SimChatMessage['content']): string {
  const text = messageText(content);
  if (!text.includes('<system-reminder>')) return text;
  return text
    .split(REMINDER)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '')
    .join('\n');
}
