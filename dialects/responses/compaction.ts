// Codex's remote compaction (its "remote compaction v2", docs/wire.md "Codex"): a /v1/responses request whose
// input ends with a `compaction_trigger` item asks for the conversation to be compacted; the answer is one
// `compaction` item whose `encrypted_content` the client keeps in place of the history and sends back as input.
// The gateway has no encryption to offer and needs none (the item is the client's own context, like a message):
// `encrypted_content` is the model's summary, encoded so a client can tell it is the gateway's and pass it back
// unchanged.
import type { ChatRequest } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { ResponseContext } from './response-object.js';
import type { InputItem, OutputCompaction, ResponsesRequest } from './types.js';

/** What the model is asked in place of the trigger: the summary another model resumes from. */
export const SUMMARY_REQUEST = `You are compacting this conversation: write a handoff summary for another model that will resume the task.

Include:
- the progress so far and the decisions made
- the context, constraints and preferences the user gave
- what remains to be done, as clear next steps
- any data, examples or references needed to continue

Be concise and structured. Answer with the summary only.`;

/** How a compaction item's summary reaches the model: as a user message that says what it is. */
export const SUMMARY_PREFIX = 'Summary of the conversation so far (it replaces the earlier turns):\n';

/** The mark of the gateway's `encrypted_content`: a version, then the summary as base64url UTF-8. */
const CONTENT_PREFIX = 'gwc1.';

/** A request for compaction: its input ends with the trigger (Codex sends it last, after the whole history). */
export function isCompactionRequest(request: ResponsesRequest): boolean {
  return typeof request.input !== 'string' && request.input.at(-1)?.type === 'compaction_trigger';
}

/** A trigger anywhere but last asks for something the gateway cannot tell apart from a mistake: a 400 naming it. */
export function checkTriggerPlace(items: readonly InputItem[]): void {
  items.forEach((item, index) => {
    if (item.type === 'compaction_trigger' && index !== items.length - 1)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Invalid value for 'input[${index}]': a 'compaction_trigger' item must be the last input item.`,
        `input[${index}].type`,
      );
  });
}

export const compactionItemId = (context: ResponseContext): string => `cmp_${context.id}`;

export function compactionItem(context: ResponseContext, summary: string): OutputCompaction {
  return { type: 'compaction', id: compactionItemId(context), encrypted_content: encodeSummary(summary) };
}

export function encodeSummary(summary: string): string {
  return CONTENT_PREFIX + Buffer.from(summary, 'utf8').toString('base64url');
}

/**
 * The summary in a compaction item the client sent back. Content the gateway did not make (OpenAI's own
 * encrypted compaction, say, from a session begun there) cannot be read: a 400 that says so, never a silent drop.
 */
export function decodeSummary(content: string, param: string): string {
  const encoded = content.startsWith(CONTENT_PREFIX) ? content.slice(CONTENT_PREFIX.length) : undefined;
  if (encoded === undefined || !/^[A-Za-z0-9_-]*$/.test(encoded))
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for '${param}': this compaction item was not made by this gateway, so its content cannot be read; start a new conversation, or send the history instead of the item.`,
      param,
    );
  return Buffer.from(encoded, 'base64url').toString('utf8');
}

/**
 * A compaction request asks the model for a summary only: the client's tools (Codex sends them all) and any output
 * format are left out, so the answer is text and no tool runs.
 */
export function summaryOnly(chat: ChatRequest): void {
  delete chat.tools;
  delete chat.tool_choice;
  delete chat.parallel_tool_calls;
  delete chat.response_format;
  if (chat.gateway === undefined) return;
  delete chat.gateway.web_search;
  delete chat.gateway.response_format_param;
}
