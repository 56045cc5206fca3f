// The message dialect's search tool versions (#14, found 5): `web_search_20260209` and
// `web_search_20260318`, which current Claude Code versions send, behave as `web_search_20250305`
// where their fields are the same; the fields they add for code execution are honoured when the
// model itself may call the search, and a 400 names the field otherwise.
import t from 'tap';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import { refusal } from '../../../helpers/rejection.js';

const MODEL = 'qwen3-8b';
const decoders = createMessagesDecoders(MODEL, 8000);
const withTool = (tool: Record<string, unknown>) => ({
  model: MODEL,
  max_tokens: 100,
  messages: [{ role: 'user', content: 'search: lisbon weather' }],
  tools: [{ name: 'web_search', ...tool }],
});
const searchOf = (tool: Record<string, unknown>) => decoders.decode(withTool(tool)).request.gateway?.web_search;
const COMMON = {
  max_uses: 3,
  allowed_domains: ['weather.example'],
  blocked_domains: [],
  user_location: { type: 'approximate', city: 'Lisbon', country: 'PT' },
  cache_control: { type: 'ephemeral' },
  defer_loading: false,
  strict: true,
};

t.test('web_search_20260209 and web_search_20260318 decode as web_search_20250305 does', async (t) => {
  const { unavailable: _first, ...reference } = searchOf({ type: 'web_search_20250305', ...COMMON })!;
  for (const type of ['web_search_20260209', 'web_search_20260318']) {
    const { unavailable, ...options } = searchOf({ type, ...COMMON })!;
    t.same(options, reference, type);
    t.match(unavailable, { message: new RegExp(`'${type}' needs web search`), param: 'tools[0].type' });
  }
});

t.test("allowed_callers that include 'direct' are honoured, and an empty list is not set", async (t) => {
  for (const allowed_callers of [['direct'], ['direct', 'code_execution_20250825'], []])
    t.ok(searchOf({ type: 'web_search_20260209', allowed_callers }), JSON.stringify(allowed_callers));
});

t.test(
  "allowed_callers without 'direct' (dynamic filtering through code execution only) is a 400 naming it",
  async (t) => {
    const error = refusal(() =>
      decoders.decode(withTool({ type: 'web_search_20260209', allowed_callers: ['code_execution_20250825'] })),
    );
    t.equal(error.status, 400);
    t.equal(error.param, 'tools[0].allowed_callers');
    t.match(error.message, /include 'direct'/);
    t.equal(
      refusal(() => decoders.decode(withTool({ type: 'web_search_20260209', allowed_callers: 'direct' }))).param,
      'tools[0].allowed_callers',
    );
  },
);

t.test("response_inclusion 'full' and 'excluded' are honoured; any other value is a 400 naming it", async (t) => {
  for (const response_inclusion of ['full', 'excluded'])
    t.ok(searchOf({ type: 'web_search_20260318', response_inclusion }), response_inclusion);
  t.equal(
    refusal(() => decoders.decode(withTool({ type: 'web_search_20260318', response_inclusion: 'some' }))).param,
    'tools[0].response_inclusion',
  );
});
