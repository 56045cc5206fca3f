// Codex's tool types on /v1/responses, at the dialect: namespace tools flattened for the model and their calls
// mapped back (name + namespace), custom and local_shell tools as functions and back as their own items, their
// replays, and the refusals (docs/endpoints.md "Codex's tool types").
import t from 'tap';
import { createResponsesDialect } from '../../../../dialects/responses/index.js';
import type { ResponsesRequest } from '../../../../dialects/responses/types.js';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { ChatRequest } from '../../../../core/canonical.js';
import type { WireProfile } from '../../../../core/dialect.js';
import { GatewayError } from '../../../../core/errors.js';
import { ThinkingSigner } from '../../../../core/thinking-signer.js';
import { chunk, USAGE, type ChunkEvent } from '../../../fixtures/chunks.js';
import { encodeAll } from '../../../kit/frames.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed wire JSON, read deep and loose; t.same and t.match check it
type Event = Record<string, any>;

const MODEL = 'qwen3-8b';
const dialect = createResponsesDialect({ modelId: MODEL, functionTools: true, maxOutputTokens: 32768 });
const switchedOff = createResponsesDialect({ modelId: MODEL, functionTools: false, maxOutputTokens: 32768 });

const fn = (name: string) => ({
  type: 'function',
  name,
  strict: false,
  parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
});
/** As Codex 0.169 sends it with its default features. */
const MULTI_AGENT = {
  type: 'namespace',
  name: 'multi_agent_v1',
  description: 'Tools for spawning and managing sub-agents.',
  tools: [fn('close_agent'), fn('resume_agent')],
};
const APPLY_PATCH = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Edit files.',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" /.+/' },
};
const TOOLS = [fn('exec_command'), MULTI_AGENT, APPLY_PATCH, { type: 'local_shell' }];

const decode = (body: Record<string, unknown>) => dialect.decode({ model: MODEL, input: 'hi', ...body });
const chatOf = (body: Record<string, unknown>): ChatRequest => decode(body).request;

function rejection(body: Record<string, unknown>, on = dialect): GatewayError {
  try {
    on.decode({ model: MODEL, input: 'hi', ...body });
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('decode accepted the body');
}

/** One upstream tool call, streamed as vLLM does: the name, then the arguments in two fragments. */
function callStream(name: string, args: string): ChunkEvent[] {
  const half = Math.floor(args.length / 2);
  return [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]),
    chunk([
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: '' } }] },
      },
    ]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] } }]),
    chunk([
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] },
        finish_reason: 'tool_calls',
      },
    ]),
    chunk([], USAGE),
  ];
}

const SIGNER = new ThinkingSigner(Buffer.alloc(32, 1));
const encodeContext = (wire: WireProfile) => ({
  id: 'gw1',
  created: 100,
  wire,
  thinkingSigner: SIGNER,
  client: undefined,
  limits: undefined,
});

function streamed(events: ChunkEvent[], wire: WireProfile, body: Record<string, unknown> = { tools: TOOLS }) {
  const echo = decode(body).echo;
  const encoder = dialect.streamEncoder(encodeContext(wire), echo);
  return encodeAll(encoder, events).map((frame) => JSON.parse(frame.data) as Event);
}

function body(events: ChunkEvent[], wire: WireProfile, request: Record<string, unknown> = { tools: TOOLS }): Event {
  const accumulator = new CompletionAccumulator();
  for (const event of events) accumulator.add(event.chunk);
  return dialect.encodeBody(accumulator.result(), encodeContext(wire), decode(request).echo) as Event;
}

t.test("a namespace tool's functions reach the model as <namespace>__<name>", async (t) => {
  const names = chatOf({ tools: TOOLS }).tools?.map((tool) => tool.function.name);
  t.same(names, [
    'exec_command',
    'multi_agent_v1__close_agent',
    'multi_agent_v1__resume_agent',
    'apply_patch',
    'local_shell',
  ]);
});

t.test('regression (found 1): a request with the namespace tool Codex sends by default is not a 400', async (t) => {
  t.doesNotThrow(() => decode({ tools: [MULTI_AGENT], stream: true }));
});

t.test('a flattened name that is already another tool name is a 400 naming the field', async (t) => {
  const error = rejection({ tools: [fn('multi_agent_v1__close_agent'), MULTI_AGENT] });
  t.match(error, { code: 'GW_ERR_REQUEST_INVALID', status: 400, param: 'tools[1].tools[0].name' });
  t.match(error.message, /two tools named 'multi_agent_v1__close_agent'/);
});

t.test('a tool type the gateway does not have is a 400 naming tools[i].type and the type', async (t) => {
  const error = rejection({ tools: [fn('a'), { type: 'code_interpreter' }] });
  t.match(error, { status: 400, param: 'tools[1].type' });
  t.match(error.message, /'code_interpreter' is not supported on \/v1\/responses \(tools\[1\]\.type\)/);
  t.match(rejection({ tools: [{ ...MULTI_AGENT, tools: [{ type: 'custom', name: 'x' }] }] }), {
    param: 'tools[0].tools[0].type',
  });
});

t.test(
  'with function tools switched off, namespace, custom and local_shell tools are refused like function tools',
  async (t) => {
    for (const tool of [MULTI_AGENT, APPLY_PATCH, { type: 'local_shell' }])
      t.match(rejection({ tools: [tool] }, switchedOff), {
        status: 400,
        param: 'tools[0].type',
        message: /Function tool calling/,
      });
    t.match(rejection({ input: [{ type: 'custom_tool_call_output', call_id: 'c', output: 'x' }] }, switchedOff), {
      param: 'input[0].type',
    });
  },
);

t.test('a custom tool is a function of one string input, its grammar in the description', async (t) => {
  const tool = chatOf({ tools: [APPLY_PATCH] }).tools?.[0]?.function;
  t.match(tool, {
    name: 'apply_patch',
    parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
  });
  t.match(
    tool?.description,
    /Edit files\.\n\nWrite the 'input' text in this lark grammar:\nstart: "\*\*\* Begin Patch"/,
  );
});

t.test('replayed calls and outputs of every client tool type become tool calls and tool messages', async (t) => {
  const chat = chatOf({
    tools: TOOLS,
    input: [
      { role: 'user', content: 'go' },
      {
        type: 'function_call',
        call_id: 'c1',
        name: 'close_agent',
        namespace: 'multi_agent_v1',
        arguments: '{"target":"a"}',
      },
      { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
      {
        type: 'local_shell_call',
        call_id: 'c3',
        status: 'completed',
        action: { type: 'exec', command: ['ls'], working_directory: '/w', timeout_ms: 5, env: {}, user: null },
      },
      { type: 'function_call_output', call_id: 'c1', output: 'closed' },
      { type: 'custom_tool_call_output', call_id: 'c2', output: 'patched' },
      { type: 'local_shell_call_output', call_id: 'c3', output: 'a.txt' },
    ],
  });
  t.same(chat.messages.slice(1), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'multi_agent_v1__close_agent', arguments: '{"target":"a"}' } },
        { id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
        {
          id: 'c3',
          type: 'function',
          function: { name: 'local_shell', arguments: '{"command":["ls"],"workdir":"/w","timeout_ms":5}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'closed' },
    { role: 'tool', tool_call_id: 'c2', content: 'patched' },
    { role: 'tool', tool_call_id: 'c3', content: 'a.txt' },
  ]);
});

for (const wire of ['spec', 'openai'] as const) {
  t.test(`[${wire}] a namespaced call comes back as a function_call with its own name and the namespace`, async (t) => {
    const events = callStream('multi_agent_v1__close_agent', '{"target": "a"}');
    const item = {
      type: 'function_call',
      name: 'close_agent',
      namespace: 'multi_agent_v1',
      arguments: '{"target": "a"}',
    };
    t.match(body(events, wire).output, [item]);
    const frames = streamed(events, wire);
    t.match(frames.find((f) => f.type === 'response.output_item.added')?.item, {
      type: 'function_call',
      name: 'close_agent',
      namespace: 'multi_agent_v1',
    });
    t.match(
      frames.find((f) => f.type === 'response.function_call_arguments.done'),
      { name: 'close_agent' },
    );
    t.match(frames.find((f) => f.type === 'response.output_item.done')?.item, item);
    t.match(frames.at(-1)?.response.output, [item]);
  });

  t.test(
    `[${wire}] a custom tool's call comes back as custom_tool_call with its input, and input delta/done events`,
    async (t) => {
      const events = callStream('apply_patch', '{"input": "*** Begin Patch\\n"}');
      const item = { type: 'custom_tool_call', name: 'apply_patch', call_id: 'call_1', input: '*** Begin Patch\n' };
      t.match(body(events, wire).output, [item]);
      const frames = streamed(events, wire);
      t.same(frames.map((f) => f.type).slice(1, -1), [
        'response.output_item.added',
        'response.custom_tool_call_input.delta',
        'response.custom_tool_call_input.done',
        'response.output_item.done',
      ]);
      t.match(frames[2], { delta: '*** Begin Patch\n', item_id: frames[1]?.item.id });
      t.match(frames[3], { input: '*** Begin Patch\n' });
      t.match(frames[4]?.item, item);
    },
  );

  t.test(`[${wire}] a local_shell call comes back as local_shell_call with its exec action`, async (t) => {
    const events = callStream('local_shell', '{"command": ["touch", "x"], "workdir": "/w", "timeout_ms": 1000}');
    const item = {
      type: 'local_shell_call',
      call_id: 'call_1',
      action: { type: 'exec', command: ['touch', 'x'], working_directory: '/w', timeout_ms: 1000, env: {}, user: null },
    };
    t.match(body(events, wire).output, [item]);
    const frames = streamed(events, wire);
    t.same(
      frames.map((f) => f.type).slice(1, -1),
      ['response.output_item.added', 'response.output_item.done'],
      'no argument deltas: the action is whole at the end',
    );
    t.match(frames[2]?.item, item);
  });
}

t.test('a local_shell command written as one string runs through bash -lc', async (t) => {
  const item = body(callStream('local_shell', '{"command": "ls -la"}'), 'openai').output[0];
  t.same(item.action.command, ['bash', '-lc', 'ls -la']);
});

t.test('the echo keeps the tools as the client sent them', async (t) => {
  const echo: ResponsesRequest = decode({ tools: TOOLS }).echo;
  t.same(echo.tools, TOOLS);
});
