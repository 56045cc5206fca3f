import type { ChatCompletion, CompletionSegment, JsonObject } from '../../core/canonical.js';
import { callItem } from './call-items.js';
import { compactionItem } from './compaction.js';
import { outcomeOf } from './outcome.js';
import { reasoningItem, reasoningItemId } from './reasoning.js';
import {
  callItemId,
  codePoints,
  clientCallId,
  messageItem,
  messageItemId,
  responseObject,
  responsesUsage,
  searchItemId,
  urlCitation,
  type ResponseContext,
} from './response-object.js';
import type { OutputItem, OutputMessage, OutputWebSearchCall, ResponseStatus } from './types.js';

/**
 * The non-streaming body (spec 2.7 + docs/wire.md): the reasoning item (when the model reasoned), the message item
 * (unless the turn is only tool calls), then one item per call (`function_call`, or the client tool's own item:
 * call-items.ts), with the ids a stream of the same
 * answer would carry.
 */
export function encodeResponsesBody(completion: ChatCompletion, context: ResponseContext): JsonObject {
  const choice = completion.choices[0];
  const outcome = outcomeOf(choice?.finish_reason);
  const text = choice?.message.content ?? '';
  // A compaction request offered the model no tools (compaction.ts): its text is the summary, no call is the client's.
  const calls = context.compaction === true ? [] : (choice?.message.tool_calls ?? []);
  const output: OutputItem[] = [];
  const reasoning = choice?.message.reasoning_content;
  if (completion.segments !== undefined) output.push(...segmentItems(completion.segments, context, outcome.status));
  else {
    if (reasoning) output.push(reasoningItem(reasoningItemId(context, 0), reasoning));
    if (context.compaction === true) output.push(compactionItem(context, text));
    else if (text !== '' || calls.length === 0)
      output.push(messageItem(messageItemId(context, 0), text, outcome.status));
  }
  calls.forEach((call, n) => {
    output.push(
      callItem(context.tools?.get(call.function.name), {
        id: callItemId(context, n),
        callId: clientCallId(context, call.id, n),
        name: call.function.name,
        arguments: call.function.arguments,
        status: outcome.status,
      }),
    );
  });
  return responseObject(context, { status: outcome.status, output, usage: responsesUsage(completion.usage), outcome });
}

/**
 * The items of an answer with search, as its stream adds them: a search finishes the message before it (a later
 * text opens the next one), `web_search_call` items say `failed` when the search errored, and each citation is a
 * `url_citation` on the marker that ends its segment.
 */
function segmentItems(
  segments: readonly CompletionSegment[],
  context: ResponseContext,
  lastStatus: ResponseStatus,
): OutputItem[] {
  const items: OutputItem[] = [];
  const searches = new Map<string, OutputWebSearchCall>();
  let message: OutputMessage | undefined;
  let length = 0;
  let messages = 0;
  let reasonings = 0;
  for (const segment of segments) {
    switch (segment.type) {
      case 'text': {
        if (message === undefined) {
          message = messageItem(messageItemId(context, messages++), '', 'completed');
          items.push(message);
          length = 0;
        }
        const part = message.content[0]!;
        part.text += segment.text;
        length += codePoints(segment.text);
        for (const { marker, citation } of segment.citations)
          part.annotations.push(urlCitation(length, marker, citation.url, citation.title));
        break;
      }
      case 'search_call': {
        message = undefined;
        const item: OutputWebSearchCall = {
          type: 'web_search_call',
          id: searchItemId(segment.id),
          status: 'completed',
          action: { type: 'search', query: segment.query },
        };
        items.push(item);
        searches.set(segment.id, item);
        break;
      }
      case 'search_result': {
        const item = searches.get(segment.id);
        if (item !== undefined && segment.error_code !== undefined) item.status = 'failed';
        break;
      }
      case 'reasoning':
        // Reasoning finishes the message before it, as in the stream.
        message = undefined;
        items.push(reasoningItem(reasoningItemId(context, reasonings++), segment.text));
        break;
      default:
        unknownSegment(segment);
    }
  }
  if (message !== undefined) message.status = lastStatus;
  return items;
}

function unknownSegment(_segment: never): void {}
