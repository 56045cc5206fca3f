// The search rule (README "Search rule"): how the simulated model uses a gateway's server-side web
// search, offered to it as a function tool named `web_search`.
// - Every `search: <query>` in the last user message's words is one search, in order (Claude Code's
//   WebSearch asks `… search for the query: <query>`, which counts the same); the query runs to the end
//   of the line or to the next `search:`. While fewer `web_search` calls than queries follow that user
//   message, the model calls `web_search` with the next query (one call per turn).
// - When the conversation ends with the result of a `web_search` call and no query is left, the model
//   answers citing the first two numbered results (`[n] Title` lines) of the searches since that user
//   message: "According to <first words of the title> [n]." for each.
import type { SimChatMessage, SimChatRequest } from './chat-types.js';
import { messageText } from '../prompt/template-input.js';
import { userWords } from './user-words.js';

export const SEARCH_TOOL = 'web_search';

export type SearchStep = { kind: 'call'; query: string } | { kind: 'answer'; text: string };

const QUERY = /search(?: for the query)?:[ \t]*(.*?)(?=[ \t]*search(?: for the query)?:|\n|$)/g;
const RESULT_LINE = /^\[(\d+)\] (.+)$/gm;
const TITLE_WORDS = 4;

export function planSearch(request: SimChatRequest): SearchStep | undefined {
  const { messages } = request;
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  if (lastUser < 0) return undefined;
  const after = messages.slice(lastUser + 1);
  const searchCallIds = new Set(
    after
      .flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []))
      .filter((call) => call.function.name === SEARCH_TOOL)
      .map((call) => call.id),
  );
  if (offersSearch(request)) {
    const queries = [...userWords(messages[lastUser]!.content).matchAll(QUERY)]
      .map((match) => match[1]!.trim())
      .filter((query) => query !== '');
    if (searchCallIds.size < queries.length) return { kind: 'call', query: queries[searchCallIds.size]! };
  }
  const last = messages.at(-1);
  if (last?.role !== 'tool' || last.tool_call_id === undefined || !searchCallIds.has(last.tool_call_id))
    return undefined;
  return {
    kind: 'answer',
    text: citingAnswer(
      after.filter((m) => m.role === 'tool' && m.tool_call_id !== undefined && searchCallIds.has(m.tool_call_id)),
    ),
  };
}

function offersSearch(request: SimChatRequest): boolean {
  const { tools, toolChoice } = request;
  if (!tools?.some((tool) => tool.function.name === SEARCH_TOOL) || toolChoice === 'none') return false;
  return typeof toolChoice !== 'object' || toolChoice.function.name === SEARCH_TOOL;
}

function citingAnswer(results: readonly SimChatMessage[]): string {
  const cited: string[] = [];
  for (const result of results) {
    for (const match of messageText(result.content).matchAll(RESULT_LINE)) {
      if (cited.length === 2) break;
      const words = match[2]!.split(/\s+/).slice(0, TITLE_WORDS).join(' ');
      cited.push(`According to ${words} [${match[1]}].`);
    }
  }
  return cited.length > 0 ? cited.join(' ') : 'The search found nothing to cite.';
}
