// How the terminal reads servers that are not vLLM (issue 25, items 1, 3, 4 and the stop part of 10;
// docs/endpoints.md "Stop sequences" and "Running usage"), in front of the sim playing llama-server: it
// says only `finish_reason: stop` at a stop string, so the gateway matches the stop strings itself (and
// never in the reasoning), and it reports its running usage as `timings` when asked, which is what a stream
// cut short or a non-streamed answer whose client left is billed from. A tap between the gateway and the
// sim shows how far an answer got, so a client can leave at a known point without sleeping.
import t, { type Test } from 'tap';
import { auditBalances } from '../../store/balance-audit.js';
import type { Store } from '../../store/store.js';
import { startSim, type RunningSim, type SimFlavorName } from '../../sim/server.js';
import type { DialectName } from '../../dialects/registry.js';
import type { UpstreamFlavor } from '../../proxy/upstream/request-fields.js';
import { ledgerRow, PATHS } from '../helpers/metered-answers.js';
import { readSse } from '../kit/sse-reader.js';
import { requestLine, startStack, type Stack } from '../helpers/stack.js';
import { startUpstreamTap, type UpstreamTap } from '../helpers/upstream-tap.js';

const MODEL = 'qwen3-8b';
/** The sim echoes what follows `echo:`; its `think:` line is the reasoning (the sim plays Qwen3's reasoning parser). */
const TEXT = 'echo: alpha beta gamma delta epsilon zeta eta theta\nthink: I think gamma comes after beta';
const ANSWER = 'alpha beta gamma delta epsilon zeta eta theta';
const REASONING = 'I think gamma comes after beta';
const STOP = 'gamma';
/** A token every this many ms once the first is out: the stop string completes well before the answer's end. */
const ITL_MS = '150';
/** Long enough that nothing after the first token comes while a test looks. */
const NEVER_MS = '60000';

interface Served {
  sim: RunningSim;
  tap: UpstreamTap;
  stack: Stack;
  store: Store;
  key: string;
}

/** A sim of `flavor`, the tap in front of it, and a metered gateway in front of the tap (for the gateway's `flavor`). */
async function serve(simFlavor: SimFlavorName, flavor: UpstreamFlavor = simFlavor): Promise<Served> {
  const sim = await startSim({ flavor: simFlavor, reasoningParser: true });
  const tap = await startUpstreamTap(sim.url);
  const stack = await startStack({
    upstreamUrls: [`${tap.url}/v1`],
    // A credit per million tokens is a micro-credit per token: the cost is the prompt tokens plus twice the output.
    yaml: `upstream:\n  flavor: ${flavor}\n  forward_headers: [x-sim-itl-ms, x-sim-ttft-ms]\npricing: { input_per_mtok: 1, output_per_mtok: 2, cache_read_multiplier: 1 }\nplugins:\n  - name: auth\n  - name: meter\n`,
  });
  const store = await stack.store();
  await store.orgs.create('acme');
  await store.orgs.addCredits('acme', 100_000_000);
  const key = (await store.keys.create('acme', 'tests')).key;
  return { sim, tap, stack, store, key };
}

let llama: Served;
let vllm: Served;
/** The sim's vLLM taken for an OpenAI-compatible server that names no stop string and has no running usage. */
let openai: Served;
t.before(async () => {
  llama = await serve('llama-server');
  vllm = await serve('vllm');
  openai = await serve('vllm', 'openai');
});
t.teardown(async () => {
  for (const served of [llama, vllm, openai]) {
    await served.stack.close();
    await served.tap.close();
    await served.sim.close();
  }
});

function post(
  served: Served,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(served.stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${served.key}`, ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** A request in the dialect with the stop string, thinking on (the reasoning holds the stop string too). */
function stopRequest(dialect: DialectName, stream: boolean): Record<string, unknown> {
  const messages = [{ role: 'user', content: TEXT }];
  switch (dialect) {
    case 'chat':
      return { model: MODEL, messages, stop: [STOP], stream, max_tokens: 200 };
    case 'messages':
      return {
        model: MODEL,
        messages,
        stop_sequences: ['omega', STOP],
        stream,
        max_tokens: 200,
        thinking: { type: 'enabled', budget_tokens: 1024 },
      };
    case 'responses':
      // The responses dialect has no stop field: its `text` is cut by nothing; only chat and messages ask.
      return { model: MODEL, input: TEXT, stream, max_output_tokens: 200 };
  }
}

/** The upstream body of a request, found by the request id the gateway sends up. */
function upstreamBody(served: Served, id: string | null): Record<string, unknown> {
  const request = served.sim.requests().find((seen) => seen.headers['x-request-id'] === id);
  return request?.body as Record<string, unknown>;
}

/** The request's ledger row once its exchange is over. */
async function settledRow(served: Served, id: string | null) {
  await requestLine(served.stack, id);
  const row = await ledgerRow(served.store.db, id ?? '');
  if (row?.state !== 'settled') throw new Error(`no settled row for ${id}: ${row?.state ?? 'no row'}`);
  return row;
}

/** The text and thinking a message-dialect answer carries, its stop, and its usage, streamed or not. */
interface MessagesAnswer {
  text: string;
  thinking: string;
  stopReason: unknown;
  stopSequence: unknown;
  startInput: number | undefined;
  usage: Record<string, number>;
}

async function messagesAnswer(response: Response, stream: boolean): Promise<MessagesAnswer> {
  if (!stream) {
    const body = (await response.json()) as {
      content: Array<{ type: string; text?: string; thinking?: string }>;
      stop_reason: unknown;
      stop_sequence: unknown;
      usage: Record<string, number>;
    };
    return {
      text: body.content.map((block) => block.text ?? '').join(''),
      thinking: body.content.map((block) => block.thinking ?? '').join(''),
      stopReason: body.stop_reason,
      stopSequence: body.stop_sequence,
      startInput: undefined,
      usage: body.usage,
    };
  }
  const answer: MessagesAnswer = {
    text: '',
    thinking: '',
    stopReason: undefined,
    stopSequence: undefined,
    startInput: undefined,
    usage: {},
  };
  for (const frame of readSse(await response.text())) {
    const data = JSON.parse(frame.data) as {
      type: string;
      message?: { usage: Record<string, number> };
      delta?: { type?: string; text?: string; thinking?: string; stop_reason?: unknown; stop_sequence?: unknown };
      usage?: Record<string, number>;
    };
    if (data.type === 'message_start') {
      const usage = data.message!.usage;
      answer.startInput = usage.input_tokens! + usage.cache_read_input_tokens!;
    }
    if (data.type === 'content_block_delta') {
      answer.text += data.delta?.text ?? '';
      answer.thinking += data.delta?.thinking ?? '';
    }
    if (data.type === 'message_delta') {
      answer.stopReason = data.delta?.stop_reason;
      answer.stopSequence = data.delta?.stop_sequence;
      answer.usage = data.usage ?? {};
    }
  }
  return answer;
}

/** The stream's end: the sim counts the request aborted (the gateway stopped reading) or completed. */
async function upstreamEnd(served: Served, before: { aborted: number; completed: number }): Promise<string> {
  const stats = await served.sim.until((now) => now.aborted + now.completed > before.aborted + before.completed);
  return stats.aborted > before.aborted ? 'aborted' : 'completed';
}

for (const stream of [false, true]) {
  t.test(
    `regression: messages reports stop_sequence on a flavor without stop_reason (llama-server, ${stream ? 'streamed' : 'not streamed'})`,
    async (t) => {
      const before = llama.sim.stats();
      const response = await post(llama, PATHS.messages, stopRequest('messages', stream), { 'x-sim-itl-ms': ITL_MS });
      t.equal(response.status, 200);
      const id = response.headers.get('x-request-id');
      const answer = await messagesAnswer(response, stream);
      t.equal(answer.stopReason, 'stop_sequence');
      t.equal(answer.stopSequence, STOP);
      t.equal(answer.text, 'alpha beta ', 'the text before the stop string');
      // llama-server keeps the newline before `</think>` in the reasoning.
      t.equal(answer.thinking.trim(), REASONING, 'the reasoning is never cut, though it holds the stop string');
      const upstream = upstreamBody(llama, id);
      t.notOk('stop' in upstream, 'llama-server does not get the stop strings: the gateway matches them');
      t.match(upstream, { stream: true, timings_per_token: true }, 'read as a stream, with its running usage');
      t.equal(await upstreamEnd(llama, before), 'aborted', 'the gateway stopped reading and aborted the call');
      const row = await settledRow(llama, id);
      t.match(row, { status: 200, output_tokens: answer.usage.output_tokens }, 'billed what the client was told');
      t.ok(row.output_tokens < 20, `the tokens up to the stop string (${row.output_tokens}), not the whole answer`);
    },
  );
}

t.test('every dialect cuts the answer at a stop string on llama-server, streamed and not', async (t) => {
  for (const stream of [false, true]) {
    await t.test(`chat, ${stream ? 'streamed' : 'not streamed'}: the text before it, finish_reason stop`, async (t) => {
      const response = await post(llama, PATHS.chat, stopRequest('chat', stream));
      if (!stream) {
        const body = (await response.json()) as {
          choices: Array<{ message: { content: string; reasoning_content?: string }; finish_reason: string }>;
        };
        t.match(body.choices[0], {
          message: { content: 'alpha beta ', reasoning_content: REASONING },
          finish_reason: 'stop',
        });
        return;
      }
      let content = '';
      let reasoning = '';
      const finishes: unknown[] = [];
      for (const frame of readSse(await response.text())) {
        if (frame.data === '[DONE]') continue;
        const data = JSON.parse(frame.data) as {
          choices: Array<{ delta?: { content?: string; reasoning_content?: string }; finish_reason?: unknown }>;
        };
        for (const choice of data.choices) {
          content += choice.delta?.content ?? '';
          reasoning += choice.delta?.reasoning_content ?? '';
          if (choice.finish_reason) finishes.push(choice.finish_reason);
        }
      }
      t.equal(content, 'alpha beta ');
      t.equal(reasoning.trim(), REASONING);
      t.same(finishes, ['stop']);
    });
  }
  for (const stream of [false, true]) {
    await t.test(`responses, ${stream ? 'streamed' : 'not streamed'}: no stop field, the whole answer`, async (t) => {
      const response = await post(llama, PATHS.responses, stopRequest('responses', stream));
      const text = await response.text();
      t.equal(response.status, 200);
      t.ok(text.includes(ANSWER), 'nothing cut');
    });
  }
});

t.test(
  'on a flavor with neither stop reports nor running usage (openai), the gateway matches the stop strings, streamed and not',
  async (t) => {
    for (const stream of [false, true]) {
      const response = await post(openai, PATHS.messages, stopRequest('messages', stream));
      const id = response.headers.get('x-request-id');
      const answer = await messagesAnswer(response, stream);
      t.match(answer, { stopReason: 'stop_sequence', stopSequence: STOP, text: 'alpha beta ' });
      const upstream = upstreamBody(openai, id);
      t.notOk('stop' in upstream);
      t.equal(upstream.stream, true, 'a non-streamed request too is read as a stream, for the match');
      t.match(await settledRow(openai, id), { status: 200 });
    }
  },
);

t.test('regression: an aborted llama-server stream is billed from its running usage', async (t) => {
  // The exact prompt: what llama-server reports for the same request, answered whole.
  const body = {
    model: MODEL,
    max_tokens: 100,
    messages: [{ role: 'user', content: TEXT }],
    thinking: { type: 'disabled' },
  };
  const whole = (await (await post(llama, PATHS.messages, body)).json()) as { usage: Record<string, number> };
  const prompt = whole.usage.input_tokens! + whole.usage.cache_read_input_tokens!;
  const client = new AbortController();
  const response = await post(
    llama,
    PATHS.messages,
    { ...body, stream: true },
    { 'x-sim-itl-ms': NEVER_MS },
    client.signal,
  );
  const id = response.headers.get('x-request-id');
  // Read up to the first text: the server has generated one token, and the next is a minute away.
  const reader = response.body!.getReader();
  let seen = '';
  while (!seen.includes('text_delta')) seen += new TextDecoder().decode((await reader.read()).value);
  client.abort();
  const row = await settledRow(llama, id);
  t.match(
    row,
    { status: 200, output_tokens: 1 },
    "the one token generated: llama-server's count, not the text's bytes / 3",
  );
  t.equal(
    row.input_tokens + row.cache_read_tokens,
    prompt,
    "the prompt as llama-server counted it, not the gateway's estimate",
  );
  t.equal(Number(row.cost_micros), costOf(row));
});

/** What a row costs at this file's prices: a micro-credit per prompt token (cache reads too), two per output token. */
const costOf = (row: { input_tokens: number; cache_read_tokens: number; output_tokens: number }): number =>
  row.input_tokens + row.cache_read_tokens + 2 * row.output_tokens;

t.test('regression: message_start carries the prompt tokens on llama-server', async (t) => {
  for (const thinking of [{ type: 'disabled' }, { type: 'enabled', budget_tokens: 1024 }]) {
    const response = await post(llama, PATHS.messages, {
      model: MODEL,
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'echo: how many tokens' }],
      thinking,
    });
    const answer = await messagesAnswer(response, true);
    const final = answer.usage.input_tokens! + answer.usage.cache_read_input_tokens!;
    t.ok(final > 0);
    t.equal(answer.startInput, final, `thinking ${thinking.type}: message_start has the prompt the end reports`);
  }
});

/** A non-streamed chat request whose client leaves once the server has generated its first token. */
async function leaveNonStreamed(t: Test, served: Served): Promise<void> {
  const body = {
    model: MODEL,
    max_tokens: 100,
    enable_thinking: false,
    messages: [{ role: 'user', content: 'echo: one two three four' }],
  };
  const whole = (await (await post(served, PATHS.chat, body)).json()) as { usage: { prompt_tokens: number } };
  const client = new AbortController();
  const before = served.sim.stats().requests;
  const answer = post(served, PATHS.chat, body, { 'x-sim-itl-ms': NEVER_MS }, client.signal).catch(
    (error: unknown) => error,
  );
  // The role chunk and the first token's have reached the gateway (its upstream socket); the next token is a minute away.
  await served.tap.events(2);
  client.abort();
  t.match(await answer, { name: 'AbortError' }, 'the client left without an answer');
  t.ok(served.sim.stats().requests > before);
  const id = String(served.sim.requests().at(-1)!.headers['x-request-id']);
  const row = await settledRow(served, id);
  t.match(row, { status: 499, output_tokens: 1 }, 'client closed request; the one token the server produced');
  t.equal(row.input_tokens + row.cache_read_tokens, whole.usage.prompt_tokens, 'and the prompt it read');
  t.equal(Number(row.cost_micros), costOf(row));
}

t.test('regression: a non-streamed request whose client left is billed what the server produced', async (t) => {
  await t.test('llama-server', (t) => leaveNonStreamed(t, llama));
  await t.test('vLLM', (t) => leaveNonStreamed(t, vllm));
});

t.test(
  'a non-streamed request on llama-server is read as a stream and answered as one body with its usage',
  async (t) => {
    const response = await post(llama, PATHS.chat, {
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'echo: one two three' }],
      enable_thinking: false,
    });
    t.match(response.headers.get('content-type'), /^application\/json/);
    const body = (await response.json()) as {
      choices: Array<{ message: { content: string } }>;
      usage: { completion_tokens: number };
    };
    t.equal(body.choices[0]?.message.content, 'one two three');
    t.ok(body.usage.completion_tokens > 0);
    t.match(upstreamBody(llama, response.headers.get('x-request-id')), { stream: true, timings_per_token: true });
  },
);

// Runs last.
t.test('the books balance after every request here', async (t) => {
  for (const served of [llama, vllm, openai]) {
    const held = await served.store.db.selectFrom('usage').select('id').where('state', '=', 'held').execute();
    t.same(held, [], 'no open hold');
    for (const audit of await auditBalances(served.store.db)) t.equal(audit.discrepancyMicros, 0);
  }
});
