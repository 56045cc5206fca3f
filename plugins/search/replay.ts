// Replay (spec rule 6): a later request carries the earlier turn's `web_search_tool_result` blocks,
// which must come back unchanged. Each result's `encrypted_content` is opened and checked against the
// block (a changed one is a 400 naming the field), and the tool message the decoder left empty for
// it gets the results' text, numbered as sources of this request, so the model reads them again.
import type { ChatMessage, ChatRequest, ReplayedSearch } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { Sealer } from './sealer.js';
import { errorText, resultsText, type ContextSize, type SealedPage, type Source, type SourceBook } from './sources.js';

export function restoreReplay(
  request: ChatRequest,
  replay: readonly ReplayedSearch[],
  book: SourceBook,
  sealer: Sealer,
  size: ContextSize,
): void {
  const filled = new Set<ChatMessage>();
  for (const entry of replay) {
    const text = replayedText(entry, book, sealer, size);
    const message = request.messages.find(
      (candidate) =>
        candidate.role === 'tool' &&
        candidate.tool_call_id === entry.tool_call_id &&
        candidate.content === '' &&
        !filled.has(candidate),
    );
    if (message === undefined)
      throw new GatewayError('GW_ERR_INTERNAL', 'A replayed search result lost its place in the conversation.');
    message.content = text;
    filled.add(message);
  }
}

function replayedText(entry: ReplayedSearch, book: SourceBook, sealer: Sealer, size: ContextSize): string {
  const param = `${entry.param}.content`;
  const content = entry.content;
  if (isRecord(content) && content.type === 'web_search_tool_result_error' && typeof content.error_code === 'string')
    return errorText(content.error_code);
  if (!Array.isArray(content)) {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for '${param}': must be the array of 'web_search_result' blocks or the 'web_search_tool_result_error' the gateway sent.`,
      param,
    );
  }
  const sources = content.map((result: unknown, index): Source => {
    const at = `${param}[${index}]`;
    if (!isRecord(result) || result.type !== 'web_search_result')
      throw invalid(`${at}.type`, "must be 'web_search_result'");
    if (typeof result.encrypted_content !== 'string')
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Missing required field '${at}.encrypted_content'.`,
        `${at}.encrypted_content`,
      );
    const page = sealer.open('content', result.encrypted_content);
    if (!isPage(page))
      throw invalid(
        `${at}.encrypted_content`,
        'it was not issued by this gateway, or it was changed; pass search results back exactly as they were received',
      );
    if (result.url !== page.u)
      throw invalid(
        `${at}.url`,
        "it does not match the result's encrypted_content; pass search results back unchanged",
      );
    if (result.title !== page.t)
      throw invalid(
        `${at}.title`,
        "it does not match the result's encrypted_content; pass search results back unchanged",
      );
    return book.add({ url: page.u, title: page.t, content: page.c, pageAge: page.a });
  });
  return resultsText(sources, size);
}

function invalid(param: string, why: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID', `Invalid value for '${param}': ${why}.`, param);
}

function isPage(value: unknown): value is SealedPage {
  return (
    isRecord(value) &&
    typeof value.u === 'string' &&
    typeof value.t === 'string' &&
    typeof value.c === 'string' &&
    (value.a === null || typeof value.a === 'string')
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
