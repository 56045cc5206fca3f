// The four POST routes the fuzzer drives, and what each one's answers look like: its error dialect, the
// marker of a successful body, and the events that may end a stream.

export type RouteName = 'chat' | 'messages' | 'count_tokens' | 'responses';

export const ROUTE_NAMES: readonly RouteName[] = ['chat', 'messages', 'count_tokens', 'responses'];

/** `openai`: `{error:{message, type, param, code}}`; `anthropic`: `{type:'error', error:{type, message}}`. */
export type ErrorDialect = 'openai' | 'anthropic';

export interface RouteShape {
  path: string;
  errors: ErrorDialect;
  /** Whether a parsed 200 body is this route's answer. */
  isAnswer(body: Record<string, unknown>): boolean;
  /** The event names that may close a stream (profile `spec` for chat). */
  streamEnds: readonly string[];
}

export const ROUTES: Record<RouteName, RouteShape> = {
  chat: {
    path: '/v1/chat/completions',
    errors: 'openai',
    isAnswer: (body) => body.object === 'chat.completion',
    // Profile `openai` ends with `data: [DONE]` (see the oracle).
    streamEnds: ['message_stop', 'error'],
  },
  messages: {
    path: '/v1/messages',
    errors: 'anthropic',
    isAnswer: (body) => body.type === 'message',
    streamEnds: ['message_stop', 'error'],
  },
  count_tokens: {
    path: '/v1/messages/count_tokens',
    errors: 'anthropic',
    isAnswer: (body) => Number.isSafeInteger(body.input_tokens) && (body.input_tokens as number) >= 0,
    streamEnds: [],
  },
  responses: {
    path: '/v1/responses',
    errors: 'openai',
    isAnswer: (body) => body.object === 'response',
    streamEnds: ['response.completed', 'response.incomplete', 'response.failed', 'error'],
  },
};
