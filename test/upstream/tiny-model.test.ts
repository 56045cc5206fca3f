// The tiny Qwen3 model (upstream-tier/make-tiny-qwen3.ts) in llama.cpp's real llama-server: the
// generator writes the same file on every run, and llama-server's own template rendering and
// output parsers turn the model's fixed tokens into reasoning, content and tool calls. Without a
// llama-server binary (LLAMA_SERVER_BIN, or upstream-tier/build-llama-server.sh) the server tests
// are skipped, except under CI, where they fail.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { packageRoot } from '../../config/package-root.js';
import { llamaServerBinary, startLlamaServer, type RunningLlamaServer } from '../../upstream-tier/llama-server.js';
import { WEATHER_TOOL } from '../../upstream-tier/tiny-qwen3-check.js';
import { SAYS } from '../../upstream-tier/tiny-qwen3-answers.js';
import { freePort } from '../helpers/free-port.js';
import { sseJson } from '../kit/sse-reader.js';

// Building llama-server, when its binary is not cached yet, takes 15–20 minutes.
t.setTimeout(30 * 60_000);

const dir = mkdtempSync(join(tmpdir(), 'tiny-qwen3-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const model = join(dir, 'tiny-qwen3.gguf');

async function generate(out: string): Promise<string> {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'upstream-tier/make-tiny-qwen3.ts', out], {
    cwd: packageRoot(),
  });
  return createHash('sha256').update(readFileSync(out)).digest('hex');
}

const hashes = await Promise.all([generate(model), generate(join(dir, 'again.gguf'))]);

t.test('the generator writes the same file, byte for byte, on every run', async (t) => {
  t.equal(hashes[0], hashes[1]);
});

let binary: string | undefined;
let unavailable = '';
try {
  binary = await llamaServerBinary();
} catch (error) {
  unavailable = (error as Error).message;
}

t.test(
  'a llama-server binary is there (CI must have one)',
  { skip: !process.env.CI && binary === undefined ? unavailable : false },
  async (t) => {
    t.ok(binary, unavailable);
  },
);

const withServer = { skip: binary === undefined && `no llama-server: ${unavailable}`, timeout: 120_000 };

const question = { role: 'user', content: 'What is the weather in Paris?' };
const afterToolResult = [
  question,
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": 21}' },
];
const thinkingOff = { chat_template_kwargs: { enable_thinking: false } };
const tools = { tools: [WEATHER_TOOL] };

interface Answer {
  content: string | null | undefined;
  reasoning: string | undefined;
  toolCalls: Array<{ name: string; arguments: string }>;
  finishReason: string;
  completionTokens: number | undefined;
}

interface Choice {
  finish_reason: string | null;
  message?: Delta;
  delta?: Delta;
}

interface Delta {
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{ index?: number; function: { name?: string; arguments?: string } }>;
}

/** A chat completion, streamed or not, gathered into one answer. */
async function chat(server: RunningLlamaServer, body: Record<string, unknown>, stream: boolean): Promise<Answer> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
  });
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  if (!stream) {
    const json = (await response.json()) as { choices: Choice[]; usage?: { completion_tokens: number } };
    const choice = json.choices[0] as Choice;
    const message = choice.message ?? {};
    return {
      content: message.content,
      reasoning: message.reasoning_content,
      toolCalls: (message.tool_calls ?? []).map((call) => ({
        name: call.function.name ?? '',
        arguments: call.function.arguments ?? '',
      })),
      finishReason: choice.finish_reason ?? '',
      completionTokens: json.usage?.completion_tokens,
    };
  }
  const answer: Answer = {
    content: undefined,
    reasoning: undefined,
    toolCalls: [],
    finishReason: '',
    completionTokens: undefined,
  };
  for (const chunk of sseJson<{ choices: Choice[]; usage?: { completion_tokens: number } }>(await response.text())) {
    answer.completionTokens = chunk.usage?.completion_tokens ?? answer.completionTokens;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    if (choice.finish_reason) answer.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') answer.content = (answer.content ?? '') + delta.content;
    if (delta.reasoning_content !== undefined) answer.reasoning = (answer.reasoning ?? '') + delta.reasoning_content;
    for (const part of delta.tool_calls ?? []) {
      const call = (answer.toolCalls[part.index ?? 0] ??= { name: '', arguments: '' });
      call.name += part.function.name ?? '';
      call.arguments += part.function.arguments ?? '';
    }
  }
  return answer;
}

t.test('llama-server with the tiny model', withServer, async (t) => {
  const server = await startLlamaServer({ binary: binary as string, model, port: await freePort() });
  t.teardown(() => server.stop());

  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'not streamed';

    t.test(`thinking on: the reasoning, then the text answer (${how})`, async (t) => {
      const answer = await chat(server, { messages: [question] }, stream);
      t.equal(answer.reasoning, SAYS.reasoning);
      t.equal(answer.content, SAYS.content);
      t.equal(answer.finishReason, 'stop');
    });

    t.test(`thinking off: the text answer alone (${how})`, async (t) => {
      const answer = await chat(server, { messages: [question], ...thinkingOff }, stream);
      t.notOk(answer.reasoning);
      t.equal(answer.content, SAYS.content);
      t.equal(answer.finishReason, 'stop');
    });

    for (const [thinking, kwargs] of [
      ['on', {}],
      ['off', thinkingOff],
    ] as const) {
      t.test(`tools offered, thinking ${thinking}: a tool call (${how})`, async (t) => {
        const answer = await chat(server, { messages: [question], ...tools, ...kwargs }, stream);
        t.equal(answer.reasoning || undefined, thinking === 'on' ? SAYS.reasoning : undefined);
        t.notOk(answer.content, 'no text besides the call');
        t.same(
          answer.toolCalls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown })),
          [{ name: SAYS.toolName, arguments: SAYS.toolArguments }],
        );
        t.equal(answer.finishReason, 'tool_calls');
      });

      t.test(`after the tool result, thinking ${thinking}: the text answer (${how})`, async (t) => {
        const answer = await chat(server, { messages: afterToolResult, ...tools, ...kwargs }, stream);
        t.equal(answer.reasoning || undefined, thinking === 'on' ? SAYS.reasoning : undefined);
        t.equal(answer.content, SAYS.content);
        t.same(answer.toolCalls, []);
        t.equal(answer.finishReason, 'stop');
      });
    }
  }

  t.test('an assistant prefill ending in ":" goes on with " Hello world!", the prefill echoed', async (t) => {
    const prefill = { role: 'assistant', content: 'Sure:' };
    for (const kwargs of [{}, thinkingOff]) {
      const answer = await chat(server, { messages: [question, prefill], ...kwargs }, false);
      t.equal(answer.content, `Sure: ${SAYS.content}`);
      t.equal(answer.finishReason, 'stop');
    }
  });

  t.test('an unknown context ends at once', async (t) => {
    const response = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'The sky over Paris is', max_tokens: 20 }),
    });
    const json = (await response.json()) as { choices: Array<{ text: string; finish_reason: string }> };
    t.same(json.choices[0], { text: '', index: 0, logprobs: null, finish_reason: 'stop' });
  });

  t.test('a JSON schema response format gives JSON of the schema, closed at once', async (t) => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const response_format = { type: 'json_schema', json_schema: { name: 'weather', schema } };
    for (const kwargs of [{}, thinkingOff]) {
      const answer = await chat(server, { messages: [question], response_format, temperature: 0, ...kwargs }, false);
      t.same(JSON.parse(answer.content ?? ''), { city: '' });
      t.equal(answer.finishReason, 'stop');
    }
  });
});

t.test('llama-server --ignore-eos with the tiny model', withServer, async (t) => {
  const server = await startLlamaServer({ binary: binary as string, model, port: await freePort(), ignoreEos: true });
  t.teardown(() => server.stop());

  for (const stream of [false, true]) {
    t.test(`the answer runs on to max_tokens (${stream ? 'streamed' : 'not streamed'})`, async (t) => {
      const thinking = await chat(server, { messages: [question], max_tokens: 20 }, stream);
      t.equal(thinking.reasoning, SAYS.reasoning);
      t.equal(thinking.content, 'Hello world! Hello world! Hello world! Hello world! Hello');
      t.equal(thinking.finishReason, 'length');
      const direct = await chat(server, { messages: [question], max_tokens: 21, ...thinkingOff }, stream);
      t.equal(direct.content, `${'Hello world! '.repeat(7).trim()}`);
      t.equal(direct.finishReason, 'length');
      t.equal(direct.completionTokens, 21);
    });
  }
});
