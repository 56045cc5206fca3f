// The output budget of /v1/messages (dialects.messages.max_tokens and max_tokens_over_limit): a request over
// the limit is refused with a 400 that names the setting (the spec's default), or served with the limit
// (clamp) for operators whose users run clients with higher defaults (the Claude Agent SDK asks for 32000).
import t from 'tap';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import { createDialects, type DialectOptions } from '../../../../dialects/registry.js';
import { refusal } from '../../../helpers/rejection.js';

const MODEL = 'qwen3-8b';
const base = { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] };
const CLAMP = { setBy: 'dialects.messages.max_tokens', overLimit: 'clamp' } as const;

/** The message dialect as bin/ makes it, from the config's numbers. */
function messagesDialect(options: Partial<DialectOptions>) {
  return createDialects({
    modelId: MODEL,
    modelAliases: [],
    contextTokens: 32768,
    messagesMaxTokens: 8000,
    responsesFunctionTools: false,
    ...options,
  }).messages;
}

t.test('reject (the default): a max_tokens over the limit is a 400 on max_tokens that names the setting', async (t) => {
  const error = refusal(() => createMessagesDecoders(MODEL, 8000).decode({ ...base, max_tokens: 32000 }));
  t.equal(error.status, 400);
  t.equal(error.kind, 'invalid_request');
  t.equal(error.param, 'max_tokens');
  t.equal(
    error.message,
    "max_tokens: must be <= 8000 (the gateway's dialects.messages.max_tokens; clients with higher defaults: Claude Agent SDK and Claude Code read CLAUDE_CODE_MAX_OUTPUT_TOKENS)",
  );
  t.equal(createMessagesDecoders(MODEL, 8000).decode({ ...base, max_tokens: 8000 }).request.max_tokens, 8000);
});

t.test('reject: where the model context is lower than the setting, the 400 names the context', async (t) => {
  const dialect = messagesDialect({ contextTokens: 4096 });
  const error = refusal(() => dialect.decode({ ...base, max_tokens: 5000 }));
  t.equal(error.param, 'max_tokens');
  t.match(error.message, /^max_tokens: must be <= 4096 \(the model's context: model\.max_context_tokens/);
  t.match(error.message, /CLAUDE_CODE_MAX_OUTPUT_TOKENS/);
});

t.test('clamp: a max_tokens over the limit is served with the limit', async (t) => {
  const decoders = createMessagesDecoders(MODEL, 8000, [], CLAMP);
  t.equal(decoders.decode({ ...base, max_tokens: 32000 }).request.max_tokens, 8000);
  t.equal(decoders.decode({ ...base, max_tokens: 8001 }).request.max_tokens, 8000);
  t.equal(decoders.decode({ ...base, max_tokens: 1e29 }).request.max_tokens, 8000, '1e29 (a 30-digit integer) too');
});

t.test('clamp: the limit is the model context where that is lower than the setting', async (t) => {
  const dialect = messagesDialect({ contextTokens: 4096, messagesMaxTokensOverLimit: 'clamp' });
  t.equal(dialect.decode({ ...base, max_tokens: 32000 }).request.max_tokens, 4096);
});

t.test('clamp never raises a smaller max_tokens', async (t) => {
  const decoders = createMessagesDecoders(MODEL, 8000, [], CLAMP);
  for (const asked of [1, 100, 7999, 8000])
    t.equal(decoders.decode({ ...base, max_tokens: asked }).request.max_tokens, asked);
});

t.test(
  'clamp: a missing, non-integer, zero, negative or non-number max_tokens is still a 400 naming the field',
  async (t) => {
    const decoders = createMessagesDecoders(MODEL, 8000, [], CLAMP);
    t.equal(refusal(() => decoders.decode(base)).param, 'max_tokens');
    for (const max_tokens of [1.5, 8000.5, 0, -1, -32000, '32000', null, true]) {
      const error = refusal(() => decoders.decode({ ...base, max_tokens }));
      t.equal(error.status, 400, `max_tokens ${JSON.stringify(max_tokens)}`);
      t.equal(error.param, 'max_tokens', `max_tokens ${JSON.stringify(max_tokens)}`);
    }
  },
);

t.test('clamp: count_tokens still refuses max_tokens (spec 2.8)', async (t) => {
  const decoders = createMessagesDecoders(MODEL, 8000, [], CLAMP);
  t.equal(refusal(() => decoders.decodeCount({ ...base, max_tokens: 32000 })).param, 'max_tokens');
});
