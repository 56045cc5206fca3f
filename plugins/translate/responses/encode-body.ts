import type { ChatCompletion, JsonObject } from '../../../proxy/canonical.js';
import { outcomeOf } from './outcome.js';
import { callItemId, fallbackCallId, messageItem, messageItemId, responseObject, responsesUsage, type ResponseContext } from './response-object.js';
import type { OutputItem } from './types.js';

/**
 * The non-streaming body (spec 2.7 + WIRE.md): the message item (unless the turn is only tool calls), then one
 * `function_call` item per call, with the ids a stream of the same answer would carry.
 */
export function encodeResponsesBody(completion: ChatCompletion, context: ResponseContext): JsonObject {
  const choice = completion.choices[0];
  const outcome = outcomeOf(choice?.finish_reason);
  const text = choice?.message.content ?? '';
  const calls = choice?.message.tool_calls ?? [];
  const output: OutputItem[] = [];
  if (text !== '' || calls.length === 0) output.push(messageItem(messageItemId(context, 0), text, outcome.status));
  calls.forEach((call, n) => {
    output.push({
      type: 'function_call',
      id: callItemId(context, n),
      call_id: call.id || fallbackCallId(context, n),
      name: call.function.name,
      arguments: call.function.arguments,
      status: outcome.status,
    });
  });
  return responseObject(context, { status: outcome.status, output, usage: responsesUsage(completion.usage), outcome });
}
