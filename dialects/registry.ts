// The dialects the gateway speaks, made once at start. The one module through which the rest of the
// gateway gets them: the composition root (bin/) makes them here and hands them to the core's router.
import type { Dialect } from '../core/dialect.js';
import { createChatDialect } from './chat/index.js';
import { createMessagesDialect } from './messages/index.js';
import type { MaxTokensOverLimit } from './messages/max-tokens.js';
import { createResponsesDialect } from './responses/index.js';

/** The client dialects, one per family of routes (spec section 4). */
export type DialectName = 'chat' | 'messages' | 'responses';

export interface DialectOptions {
  /** The public model id: any other (but an alias) is a 404. */
  modelId: string;
  /** `model.aliases`: more ids a request may name for the one model. */
  modelAliases: readonly string[];
  /** The model's context in tokens: the ceiling of every max_tokens a request may ask for. */
  contextTokens: number;
  /** `dialects.messages.max_tokens`: the message dialect's own, lower ceiling. */
  messagesMaxTokens: number;
  /** `dialects.messages.max_tokens_over_limit`; default reject (the spec's). */
  messagesMaxTokensOverLimit?: MaxTokensOverLimit;
  /** `dialects.responses.function_tools`. */
  responsesFunctionTools: boolean;
}

export function createDialects(options: DialectOptions): Readonly<Record<DialectName, Dialect>> {
  const { modelId, modelAliases, contextTokens } = options;
  return {
    chat: createChatDialect({ modelId, modelAliases, maxOutputTokens: contextTokens }),
    messages: createMessagesDialect({
      modelId,
      modelAliases,
      maxTokens: Math.min(options.messagesMaxTokens, contextTokens),
      maxTokensPolicy: {
        setBy: options.messagesMaxTokens <= contextTokens ? 'dialects.messages.max_tokens' : 'context',
        overLimit: options.messagesMaxTokensOverLimit ?? 'reject',
      },
    }),
    responses: createResponsesDialect({
      modelId,
      modelAliases,
      functionTools: options.responsesFunctionTools,
      maxOutputTokens: contextTokens,
    }),
  };
}
