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
  /** What is wrong with a 200 body's usage (counts that are not whole numbers ≥ 0, a total that is not the sum). */
  usageProblem(body: Record<string, unknown>): string | undefined;
  /** The event names that may close a stream (profile `spec` for chat). */
  streamEnds: readonly string[];
}

export const ROUTES: Record<RouteName, RouteShape> = {
  chat: {
    path: '/v1/chat/completions',
    errors: 'openai',
    isAnswer: (body) => body.object === 'chat.completion',
    usageProblem: (body) => counts(body.usage, ['prompt_tokens', 'completion_tokens'], 'total_tokens'),
    // Profile `openai` ends with `data: [DONE]` (see the oracle).
    streamEnds: ['message_stop', 'error'],
  },
  messages: {
    path: '/v1/messages',
    errors: 'anthropic',
    isAnswer: (body) => body.type === 'message',
    usageProblem: (body) =>
      counts(body.usage, ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']),
    streamEnds: ['message_stop', 'error'],
  },
  count_tokens: {
    path: '/v1/messages/count_tokens',
    errors: 'anthropic',
    isAnswer: (body) => typeof body.input_tokens === 'number',
    usageProblem: (body) => counts(body, ['input_tokens']),
    streamEnds: [],
  },
  responses: {
    path: '/v1/responses',
    errors: 'openai',
    isAnswer: (body) => body.object === 'response',
    usageProblem: (body) => counts(body.usage, ['input_tokens', 'output_tokens'], 'total_tokens'),
    streamEnds: ['response.completed', 'response.incomplete', 'response.failed', 'error'],
  },
};

/** Checks that `fields` of `usage` are whole numbers ≥ 0 and that `total` (if named) is their sum. */
function counts(usage: unknown, fields: string[], total?: string): string | undefined {
  if (typeof usage !== 'object' || usage === null) return 'no usage object';
  const values = usage as Record<string, unknown>;
  for (const name of total === undefined ? fields : [...fields, total]) {
    const value = values[name];
    if (!Number.isSafeInteger(value) || (value as number) < 0) return `${name} is ${JSON.stringify(value)}`;
  }
  if (total === undefined) return undefined;
  const sum = fields.reduce((added, name) => added + (values[name] as number), 0);
  return values[total] === sum ? undefined : `${total} ${String(values[total])} is not ${fields.join(' + ')} (${sum})`;
}
