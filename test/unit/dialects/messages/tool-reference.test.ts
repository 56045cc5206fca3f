// `tool_reference` blocks in a tool result (#14): Claude Code's ToolSearch answers with one per deferred
// tool it loads, and got 400 "'tool_reference' blocks are not supported here" (it then retried three
// times and turned its tool search off). The model reads each as a line naming the tool.
import t from 'tap';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import { GatewayError } from '../../../../core/errors.js';

const MODEL = 'qwen3-8b';
const decoders = createMessagesDecoders(MODEL, 8000);
const search = { name: 'ToolSearch', input_schema: { type: 'object', properties: { query: { type: 'string' } } } };
const web = { name: 'WebSearch', defer_loading: true, input_schema: { type: 'object', properties: {} } };
const withResult = (content: unknown) => ({
  model: MODEL,
  max_tokens: 100,
  tools: [search, web],
  messages: [
    { role: 'user', content: 'find the web search tool' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'ToolSearch', input: { query: 'web' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content }] },
  ],
});

t.test(
  "regression: a tool result of tool_reference blocks (Claude Code's ToolSearch) reaches the model as lines naming the tools",
  async (t) => {
    const { request } = decoders.decode(
      withResult([
        { type: 'tool_reference', tool_name: 'WebSearch' },
        { type: 'text', text: 'and more' },
      ]),
    );
    t.same(request.messages.at(-1), {
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'Tool loaded: WebSearch\nand more',
    });
    t.same(
      decoders
        .decodeCount({ ...withResult([{ type: 'tool_reference', tool_name: 'WebSearch' }]), max_tokens: undefined })
        .messages.at(-1),
      { role: 'tool', tool_call_id: 'call_1', content: 'Tool loaded: WebSearch' },
      'count_tokens counts the same',
    );
  },
);

t.test('a tool_reference without a tool_name is a 400 naming the field', async (t) => {
  let error: unknown;
  try {
    decoders.decode(withResult([{ type: 'tool_reference' }]));
  } catch (thrown) {
    error = thrown;
  }
  t.ok(error instanceof GatewayError);
  t.match(error, { status: 400, param: 'messages[2].content[0].content[0].tool_name' });
});
