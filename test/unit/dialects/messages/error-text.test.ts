// Error text stays clean: a 400 never echoes a control character from the body. A value quoted from the
// request (a block type, a tool name, a field path) is escaped as JSON escapes it and cut short.
import t from 'tap';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import { createDialects } from '../../../../dialects/registry.js';
import { quoted } from '../../../../core/printable.js';
import { refusal } from '../../../helpers/rejection.js';

const MODEL = 'qwen3-8b';
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const dialects = createDialects({
  modelId: MODEL,
  modelAliases: [],
  contextTokens: 32768,
  messagesMaxTokens: 8000,
  responsesFunctionTools: true,
});

t.test(
  'regression: fuzz seed 20261128 case 22713 echoed a NUL in a block type (a 400 from /v1/messages)',
  async (t) => {
    // The body the fuzzer sent (gzip-encoded), as it reads once decoded.
    const body = JSON.parse(
      '{"model":"qwen3-8b","max_tokens":200,"stream":true,"tools":[{"name":"get_weather","description":"Weather for a city","input_schema":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}}],"tool_choice":{"type":"auto"},"messages":[{"role":"user","content":"Weather in Oslo?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}}]},{"role":"user","content":[{"type":"a\\u0000b","tool_use_id":"toolu_1","content":[{"type":"text","text":"3 degrees"}]},{"type":"text","text":"And tomorrow?"}]}]}',
    ) as unknown;
    const error = refusal(() => createMessagesDecoders(MODEL, 8000).decode(body));
    t.equal(error.status, 400);
    t.equal(error.param, 'messages[2].content[0].type');
    t.equal(error.message, "Invalid block at 'messages[2].content[0]': 'a\\u0000b' blocks are not supported here.");
    t.notMatch(error.message, CONTROL_CHARACTER);
  },
);

t.test(
  'regression: fuzz seed 20261128 case 30064 echoed a NUL in a server tool name (a 400 from count_tokens)',
  async (t) => {
    const body = JSON.parse(
      '{"model":"qwen3-8b","tools":[{"type":"\\u0000","name":"web_search","max_uses":3}],"messages":[{"role":"user","content":"search: tokyo weather"}]}',
    ) as unknown;
    const error = refusal(() => createMessagesDecoders(MODEL, 8000).decodeCount(body));
    t.equal(error.status, 400);
    t.equal(error.param, 'tools[0].type');
    t.equal(
      error.message,
      "The server tool '\\u0000' is not supported; only client tools (name, description, input_schema) are.",
    );
    t.notMatch(error.message, CONTROL_CHARACTER);
  },
);

t.test('a quoted value escapes controls, format characters, lone surrogates, quotes and backslashes', async (t) => {
  t.equal(quoted('web_search'), "'web_search'", 'plain text as it is');
  t.equal(quoted('météo_東京'), "'météo_東京'", 'any script as it is');
  t.equal(quoted('a\u0000b\u001b[31m\u007f\u0085'), "'a\\u0000b\\u001b[31m\\u007f\\u0085'", 'C0, DEL, C1');
  t.equal(quoted('x\u202ey\u200bz\u2028'), "'x\\u202ey\\u200bz\\u2028'", 'bidi override, zero width, line separator');
  t.equal(quoted('\ud800!\ufffd'), "'\\ud800!\\ufffd'", 'a lone surrogate and U+FFFD');
  t.equal(quoted("it's a\\b"), "'it\\'s a\\\\b'", 'the quote and the backslash');
  t.equal(quoted(42), "'42'", 'a value that is not a string');
});

t.test('a quoted value is cut short, never in the middle of a surrogate pair', async (t) => {
  t.equal(quoted('x'.repeat(500)), `'${'x'.repeat(120)}'...`);
  t.equal(quoted(`${'x'.repeat(119)}😀`), `'${'x'.repeat(119)}'...`);
  t.equal(quoted('abcdef', 3), "'abc'...");
});

t.test('every dialect quotes what it echoes of the body with escapes', async (t) => {
  const messagesBase = { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
  const chatBase = { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] };
  const tool = { name: 'f', input_schema: { type: 'object' } };
  const refusals = {
    'messages: a server tool type': () =>
      dialects.messages.decode({ ...messagesBase, tools: [{ type: 'bash_\u0085', name: 'bash' }] }),
    'messages: a tool_choice naming no tool': () =>
      dialects.messages.decode({ ...messagesBase, tools: [tool], tool_choice: { type: 'tool', name: 'g\u0007' } }),
    'chat: a tool type': () => dialects.chat.decode({ ...chatBase, tools: [{ type: 'x\u0000' }] }),
    'chat: a tool_choice naming no tool': () =>
      dialects.chat.decode({
        ...chatBase,
        tools: [{ type: 'function', function: { name: 'f' } }],
        tool_choice: { type: 'function', function: { name: 'g\u0000' } },
      }),
    'responses: a tool type': () =>
      dialects.responses.decode({ model: MODEL, input: 'Hi', tools: [{ type: 'x\u0000\u0085' }] }),
  };
  for (const [what, decode] of Object.entries(refusals)) {
    const error = refusal(decode);
    t.equal(error.status, 400, what);
    t.match(error.message, /\\u00(00|07|85)/, `${what}: the character escaped`);
    t.notMatch(error.message, CONTROL_CHARACTER, `${what}: ${JSON.stringify(error.message)}`);
  }
});

t.test('a model that is not served is named escaped and cut short in the 404, in every dialect', async (t) => {
  const bodies = {
    chat: { model: 'a\u0000b', messages: [{ role: 'user', content: 'Hi' }] },
    messages: { model: 'a\u0000b', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] },
    responses: { model: 'a\u0000b', input: 'Hi' },
  } as const;
  for (const [name, body] of Object.entries(bodies)) {
    const error = refusal(() => dialects[name as keyof typeof bodies].decode(body));
    t.equal(error.status, 404, name);
    t.match(error.message, "'a\\u0000b'", name);
    t.notMatch(error.message, CONTROL_CHARACTER, name);
  }
  const long = refusal(() => dialects.chat.decode({ ...bodies.chat, model: '\n'.repeat(2000) }));
  t.ok(long.message.length < 1000, 'a 2,000-character id is cut short');
  t.notMatch(long.message, CONTROL_CHARACTER);
});
