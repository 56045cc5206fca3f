import { GatewayError } from '../../core/errors.js';

/** `dialects.messages.max_tokens_over_limit`: what a request asking for more than the limit gets. */
export type MaxTokensOverLimit = 'reject' | 'clamp';

/** What sets the limit (the setting the 400 names) and what a request over it gets. */
export interface MaxTokensPolicy {
  /** The limit is `dialects.messages.max_tokens`, or the model's context where that is lower. */
  setBy: 'dialects.messages.max_tokens' | 'context';
  overLimit: MaxTokensOverLimit;
}

/** The spec's: the limit is the setting's, and a request over it is refused. */
export const SPEC_MAX_TOKENS_POLICY: MaxTokensPolicy = { setBy: 'dialects.messages.max_tokens', overLimit: 'reject' };

/** The largest `max_tokens` a /v1/messages request may ask for, and its policy. */
export interface MaxTokensLimit extends MaxTokensPolicy {
  /** The lower of `dialects.messages.max_tokens` and the model's context. */
  limit: number;
}

// Clients whose default max_tokens is above the spec's 8000 (the Claude Agent SDK's is 32000) read this.
const CLIENT_SETTING =
  'clients with higher defaults: Claude Agent SDK and Claude Code read CLAUDE_CODE_MAX_OUTPUT_TOKENS';

/**
 * The max_tokens a request is served with: its own when within the limit; over it, the limit (`clamp`:
 * the upstream is given the limit, so an answer cut there truthfully ends with `stop_reason: max_tokens`)
 * or a 400 that names the setting an operator or a user can change (`reject`, the spec's default).
 */
export function boundedMaxTokens(requested: number, bound: MaxTokensLimit): number {
  if (requested <= bound.limit) return requested;
  if (bound.overLimit === 'clamp') return bound.limit;
  const source =
    bound.setBy === 'context'
      ? "the model's context: model.max_context_tokens, or what the upstream reports"
      : "the gateway's dialects.messages.max_tokens";
  throw new GatewayError(
    'GW_ERR_REQUEST_INVALID',
    `max_tokens: must be <= ${bound.limit} (${source}; ${CLIENT_SETTING})`,
    'max_tokens',
  );
}
