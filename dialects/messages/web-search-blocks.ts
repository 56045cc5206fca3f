// The message dialect's search output blocks (spec 2.3): `server_tool_use` (the query) and
// `web_search_tool_result` (the sources, or an error), the same in the stream and in the body.
import type { CompletionSegment, JsonObject, SearchResultEvent } from '../../core/canonical.js';

/** The block id of a canonical search id; replays come back with it as the `tool_use_id`. */
export const serverToolUseId = (id: string): string => `srvtoolu_${id}`;

export function serverToolUseBlock(id: string, query: string): JsonObject {
  return { type: 'server_tool_use', id: serverToolUseId(id), name: 'web_search', input: { query } };
}

export function searchResultBlock(result: Pick<SearchResultEvent, 'id' | 'results' | 'error_code'>): JsonObject {
  const content =
    result.error_code !== undefined
      ? { type: 'web_search_tool_result_error', error_code: result.error_code }
      : result.results.map((source) => ({
          type: 'web_search_result',
          url: source.url,
          title: source.title,
          page_age: source.page_age,
          encrypted_content: source.encrypted_content,
        }));
  return { type: 'web_search_tool_result', tool_use_id: serverToolUseId(result.id), content };
}

/** The body's content blocks for an answer with search: in the order produced, text split after each cited claim. */
export function segmentBlocks(
  segments: readonly CompletionSegment[],
  sign: (thinking: string) => string,
): JsonObject[] {
  return segments.map((segment): JsonObject => {
    switch (segment.type) {
      case 'text':
        return segment.citations.length === 0
          ? { type: 'text', text: segment.text }
          : {
              type: 'text',
              text: segment.text,
              citations: segment.citations.map(({ citation }) => ({ type: 'web_search_result_location', ...citation })),
            };
      case 'reasoning':
        return { type: 'thinking', thinking: segment.text, signature: sign(segment.text) };
      case 'search_call':
        return serverToolUseBlock(segment.id, segment.query);
      case 'search_result':
        return searchResultBlock(segment);
      default:
        return unknownSegment(segment);
    }
  });
}

function unknownSegment(_segment: never): JsonObject {
  return {};
}
